import { describe, expect, it } from 'vitest';
import { buildTestApp, appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeModerator, makeUser, unique, type TestUser } from '../../helpers/factories.js';
import { makeCategory } from '../../helpers/factories/wikis.js';
import { applyGlossary } from '../../../src/areas/translation-glossary/glossary.translator.js';
import { MAX_GLOSSARY_ENTRIES } from '../../../src/areas/translation-glossary/glossary.queries.js';

const FIELDS = ['entryid', 'source_langid', 'term', 'translations', 'notes', 'created_date', 'modified_date', 'userid_modified'].sort();

let admin: TestUser;
let author: TestUser;
let moderator: TestUser;
let user: TestUser;
const t = appForFile({ config: { languages: ['en', 'de', 'fr'] } }, async () => {
  [admin, author, moderator, user] = await Promise.all([makeAdmin(t), makeAuthor(t), makeModerator(t), makeUser(t)]);
});

const put = (who: TestUser | null, body: unknown) => t.put('/translation_glossary/entries', { token: who?.token, body });
const storedEntry = (entryid: number) => t.db.selectFrom('translation_glossary').selectAll().where('entryid', '=', entryid).executeTakeFirst();
const storedTerms = (entryid: number) => t.db.selectFrom('translation_glossary_terms').select(['langid', 'term']).where('entryid', '=', entryid).orderBy('langid').execute();
const add = async (term: string, translations: Array<{ langid: string; term: string }> = [], extra: Record<string, unknown> = {}) => {
  const res = await put(author, { entries: [{ term, translations, ...extra }] });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().entries[0];
};
const snapshot = async () => ({
  entries: await t.db.selectFrom('translation_glossary').selectAll().orderBy('entryid').execute(),
  terms: await t.db.selectFrom('translation_glossary_terms').selectAll().orderBy('entryid').orderBy('langid').execute(),
});

describe('PUT /translation_glossary/entries', () => {
  it('adds entries (source language default: the site\'s), trimmed, with their translations: 200, stored', async () => {
    const res = await put(author, { entries: [
      { term: '  drive belt ', notes: 'Toothed belt', translations: [{ langid: 'fr', term: 'courroie' }, { langid: 'de', term: 'Antriebsriemen ' }] },
      { term: 'Förderband', source_langid: 'de', translations: [{ langid: 'en', term: 'conveyor' }] },
    ] });
    expect(res.statusCode).toBe(200);
    const [a, b] = res.json().entries;
    expect(res.json().deleted).toEqual([]);
    expect(Object.keys(a).sort()).toEqual(FIELDS);
    expect(a).toMatchObject({
      source_langid: 'en', term: 'drive belt', notes: 'Toothed belt', created_date: t.clock.now(), modified_date: t.clock.now(), userid_modified: author.userid,
      translations: [{ langid: 'de', term: 'Antriebsriemen' }, { langid: 'fr', term: 'courroie' }],
    });
    expect(b).toMatchObject({ source_langid: 'de', term: 'Förderband', translations: [{ langid: 'en', term: 'conveyor' }] });
    expect(await storedEntry(a.entryid)).toMatchObject({ source_langid: 'en', term: 'drive belt', term_lower: 'drive belt', notes: 'Toothed belt' });
    expect(await storedTerms(a.entryid)).toEqual([{ langid: 'de', term: 'Antriebsriemen' }, { langid: 'fr', term: 'courroie' }]);
  });

  it('modifies an entry: the fields sent replace the stored ones; translations sent are the complete new list', async () => {
    const e = await add(unique('pump'), [{ langid: 'de', term: 'Pumpe' }, { langid: 'fr', term: 'pompe' }], { notes: 'n' });
    t.clock.advance(10);
    let res = await put(admin, { entries: [{ entryid: e.entryid, translations: [{ langid: 'de', term: 'Pumpe' }] }] });
    expect(res.statusCode).toBe(200);
    expect(res.json().entries[0]).toMatchObject({ entryid: e.entryid, term: e.term, notes: 'n', translations: [{ langid: 'de', term: 'Pumpe' }], created_date: e.created_date, modified_date: t.clock.now(), userid_modified: admin.userid });
    expect(await storedTerms(e.entryid)).toEqual([{ langid: 'de', term: 'Pumpe' }]);
    res = await put(author, { entries: [{ entryid: e.entryid, notes: 'changed', term: 'Pump housing' }] });
    expect(res.json().entries[0]).toMatchObject({ term: 'Pump housing', notes: 'changed', translations: [{ langid: 'de', term: 'Pumpe' }] });
    res = await put(author, { entries: [{ entryid: e.entryid, translations: [] }] });
    expect(res.json().entries[0].translations).toEqual([]);
    expect(await storedTerms(e.entryid)).toEqual([]);
  });

  it('adds, modifies and deletes in one request', async () => {
    const keep = await add(unique('valve'));
    const drop = await add(unique('gasket'), [{ langid: 'de', term: 'Dichtung' }]);
    const res = await put(author, { entries: [{ entryid: keep.entryid, notes: 'x' }, { term: unique('seal') }], delete: [drop.entryid] });
    expect(res.statusCode).toBe(200);
    expect(res.json().entries.map((x: { notes: string }) => x.notes)).toEqual(['x', '']);
    expect(res.json().deleted).toEqual([drop.entryid]);
    expect(await storedEntry(drop.entryid)).toBeUndefined();
    expect(await storedTerms(drop.entryid)).toEqual([]);
  });

  it('adding a term the source language has already (any case) modifies that entry: the same PUT twice changes nothing more', async () => {
    const term = unique('Bearing');
    const e = await add(term, [{ langid: 'de', term: 'Lager' }], { notes: 'kept' });
    const again = await put(author, { entries: [{ term: term.toUpperCase(), translations: [{ langid: 'fr', term: 'roulement' }] }] });
    expect(again.statusCode).toBe(200);
    expect(again.json().entries[0]).toMatchObject({ entryid: e.entryid, term: term.toUpperCase(), notes: 'kept', translations: [{ langid: 'fr', term: 'roulement' }], created_date: e.created_date });
    const before = await snapshot();
    expect((await put(author, { entries: [{ term: term.toUpperCase(), translations: [{ langid: 'fr', term: 'roulement' }] }] })).json().entries[0].entryid).toBe(e.entryid);
    expect(await snapshot()).toEqual(before);
    // another source language is another entry
    const de = await add(term, [], { source_langid: 'de' });
    expect(de.entryid).not.toBe(e.entryid);
  });

  it('terms are unique per source language whatever their case; a deleted or renamed entry frees its term', async () => {
    const term = unique('Shaft');
    const e = await add(term);
    const f = await add(unique('Axle'));
    let res = await put(author, { entries: [{ entryid: f.entryid, term: term.toLowerCase() }] });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0]).toMatchObject({ field: 'entries[0].term', code: 'duplicate', index: 0 });
    res = await put(author, { entries: [{ term: 'twice' }, { term: 'TWICE' }] });
    expect(res.json().errors[0]).toMatchObject({ field: 'entries[1].term', code: 'duplicate' });
    res = await put(author, { entries: [{ term }], delete: [e.entryid] });
    expect(res.statusCode).toBe(200);
    const fresh = res.json().entries[0];
    expect(fresh.entryid).not.toBe(e.entryid);
    res = await put(author, { entries: [{ entryid: fresh.entryid, term: unique('other') }, { term }] });
    expect(res.statusCode).toBe(200);
    expect(res.json().entries[1].entryid).not.toBe(fresh.entryid);
  });

  it('many requests adding one new term at once: one entry, no 5xx', async () => {
    const term = unique('Sprocket');
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => put(author, { entries: [{ term, notes: `n${i}` }] })));
    expect(answers.map((a) => a.statusCode).every((s) => s === 200 || s === 422)).toBe(true);
    expect(answers.some((a) => a.statusCode === 200)).toBe(true);
    expect(await t.db.selectFrom('translation_glossary').select('entryid').where('term_lower', '=', term.toLowerCase()).execute()).toHaveLength(1);
  });

  it('422 naming each bad field, and nothing changes', async () => {
    const e = await add(unique('screw'), [{ langid: 'de', term: 'Schraube' }]);
    const before = await snapshot();
    const cases: Array<[unknown, string, string?]> = [
      [{ entries: [{ notes: 'no term' }] }, 'entries[0].term', 'missing_field'],
      [{ entries: [{ term: '   ' }] }, 'entries[0].term', 'missing_field'],
      [{ entries: [{ term: 'x', source_langid: 'it' }] }, 'entries[0].source_langid'],
      [{ entries: [{ term: 'x', translations: [{ langid: 'it', term: 'vite' }] }] }, 'entries[0].translations[0].langid'],
      [{ entries: [{ term: 'x', translations: [{ langid: 'en', term: 'same' }] }] }, 'entries[0].translations[0].langid'],
      [{ entries: [{ term: 'x', translations: [{ langid: 'de', term: 'a' }, { langid: 'de', term: 'b' }] }] }, 'entries[0].translations[1].langid', 'duplicate'],
      [{ entries: [{ term: 'x', translations: [{ langid: 'de', term: ' ' }] }] }, 'entries[0].translations[0].term', 'missing_field'],
      [{ entries: [{ term: 'ok' }, { entryid: 999999, term: 'x' }] }, 'entries[1].entryid'],
      [{ entries: [{ entryid: e.entryid, notes: 'a' }, { entryid: e.entryid, notes: 'b' }] }, 'entries[1].entryid', 'duplicate'],
      [{ entries: [{ entryid: e.entryid, notes: 'a' }], delete: [e.entryid] }, 'entries[0].entryid'],
      [{ entries: [{ entryid: e.entryid, source_langid: 'de' }] }, 'entries[0].source_langid'],
      [{ delete: [e.entryid, 999999] }, 'delete[1]'],
      [{ entries: [{ term: 'x'.repeat(256) }] }, 'entries[0].term', 'out_of_range'],
      [{ entries: [{ term: 'x', extra: 1 }] }, 'entries[0].extra'],
      [{ entries: [{ term: 5 }] }, 'entries[0].term'],
      [{ delete: [0] }, 'delete[0]'],
    ];
    for (const [body, field, code] of cases) {
      const res = await put(author, body);
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.json().errors.map((x: { field: string }) => x.field), JSON.stringify(body)).toContain(field);
      if (code) expect(res.json().errors.find((x: { field: string }) => x.field === field).code).toBe(code);
    }
    expect(await snapshot()).toEqual(before);
  });

  it('Authors and Admins write; Users and Moderators 403, no token 401; nothing changes', async () => {
    const before = await snapshot();
    expect((await put(user, { entries: [{ term: 'nope' }] })).statusCode).toBe(403);
    expect((await put(moderator, { entries: [{ term: 'nope' }] })).statusCode).toBe(403);
    expect((await put(null, { entries: [{ term: 'nope' }] })).statusCode).toBe(401);
    expect(await snapshot()).toEqual(before);
    expect((await put(admin, {})).json()).toEqual({ entries: [], deleted: [] });
  });
});

describe('GET /translation_glossary/entries', () => {
  it('lists entries in entryid order, paginated, filtered by source_langid and langid; any logged-in user', async () => {
    const a = await add(unique('alpha'), [{ langid: 'fr', term: 'alpha-fr' }]);
    const b = await add(unique('beta'), [{ langid: 'de', term: 'beta-de' }], { source_langid: 'en' });
    const all = (await t.get('/translation_glossary/entries?limit=200', { token: user.token })).json();
    const ids = all.map((x: { entryid: number }) => x.entryid);
    expect(ids).toEqual([...ids].sort((x, y) => x - y));
    expect(ids).toEqual(expect.arrayContaining([a.entryid, b.entryid]));
    expect(all.find((x: { entryid: number }) => x.entryid === a.entryid)).toEqual(a);
    const fr = (await t.get('/translation_glossary/entries?langid=fr&limit=200', { token: user.token })).json();
    expect(fr.every((x: { translations: Array<{ langid: string }> }) => x.translations.some((tr) => tr.langid === 'fr'))).toBe(true);
    expect(fr.map((x: { entryid: number }) => x.entryid)).not.toContain(b.entryid);
    const de = (await t.get('/translation_glossary/entries?source_langid=de&limit=200', { token: user.token })).json();
    expect(de.length).toBeGreaterThan(0);
    expect(de.every((x: { source_langid: string }) => x.source_langid === 'de')).toBe(true);
    const page = (await t.get('/translation_glossary/entries?order=DESC&offset=1&limit=2', { token: user.token })).json();
    expect(page.map((x: { entryid: number }) => x.entryid)).toEqual([...ids].reverse().slice(1, 3));
    expect((await t.get('/translation_glossary/entries')).statusCode).toBe(401);
    // one query for the page, one for the translations of all its entries (plus the token's)
    let n = 0;
    t.app.dbHandle.setQueryListener!(() => { n++; });
    try {
      expect((await t.get('/translation_glossary/entries?limit=5', { token: user.token })).json()).toHaveLength(5);
    } finally {
      t.app.dbHandle.setQueryListener!(null);
    }
    expect(n).toBeLessThanOrEqual(3);
    expect((await t.get('/translation_glossary/entries?limit=0', { token: user.token })).statusCode).toBe(422);
  });

  it('without limit answers every entry (the specification: "All glossary entries"), not a page of 20', async () => {
    const res = await put(author, { entries: Array.from({ length: 30 }, (_, i) => ({ term: unique(`every-${i}-`), translations: [{ langid: 'de', term: `jeder ${i}` }] })) });
    expect(res.statusCode).toBe(200);
    const stored = await t.db.selectFrom('translation_glossary').select('entryid').orderBy('entryid').execute();
    expect(stored.length).toBeGreaterThan(30);
    const all = await t.get('/translation_glossary/entries', { token: user.token });
    expect(all.statusCode).toBe(200);
    expect(all.json().map((x: { entryid: number }) => x.entryid)).toEqual(stored.map((r) => r.entryid));
    expect(all.json().find((x: { term: string }) => x.term.startsWith('every-29-')).translations).toEqual([{ langid: 'de', term: 'jeder 29' }]);
    const desc = (await t.get('/translation_glossary/entries?order=DESC&offset=2', { token: user.token })).json();
    expect(desc.map((x: { entryid: number }) => x.entryid)).toEqual(stored.map((r) => r.entryid).reverse().slice(2));
  });
});

describe('the glossary\'s size is bounded (it is read whole)', () => {
  it(`a PUT that would make it hold more than ${MAX_GLOSSARY_ENTRIES} entries is 422 and adds nothing; changing and deleting still work`, async () => {
    const small = await buildTestApp({ config: { languages: ['en', 'de'] } });
    try {
      const writer = await makeAuthor(small);
      const now = small.clock.now();
      const rows = Array.from({ length: MAX_GLOSSARY_ENTRIES - 1 }, (_, i) => ({ source_langid: 'en', term: `filler ${i}`, term_lower: `filler ${i}`, notes: '', created_date: now, modified_date: now, userid_modified: null }));
      for (let i = 0; i < rows.length; i += 500) await small.db.insertInto('translation_glossary').values(rows.slice(i, i + 500)).execute();
      const last = await small.put('/translation_glossary/entries', { token: writer.token, body: { entries: [{ term: 'the last one' }] } });
      expect(last.statusCode, last.body).toBe(200);
      const over = await small.put('/translation_glossary/entries', { token: writer.token, body: { entries: [{ term: 'one too many' }] } });
      expect(over.statusCode).toBe(422);
      expect(over.json().errors[0]).toMatchObject({ field: 'entries', code: 'out_of_range' });
      const count = async () => Number((await small.db.selectFrom('translation_glossary').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
      expect(await count()).toBe(MAX_GLOSSARY_ENTRIES);
      const id = last.json().entries[0].entryid;
      expect((await small.put('/translation_glossary/entries', { token: writer.token, body: { entries: [{ entryid: id, notes: 'changed' }] } })).statusCode).toBe(200);
      expect((await small.put('/translation_glossary/entries', { token: writer.token, body: { entries: [{ term: 'a replacement' }], delete: [id] } })).statusCode).toBe(200);
      expect(await count()).toBe(MAX_GLOSSARY_ENTRIES);
      expect((await small.get('/translation_glossary/entries', { token: writer.token })).json()).toHaveLength(MAX_GLOSSARY_ENTRIES);
    } finally {
      await small.close();
    }
  });
});

describe('DELETE /translation_glossary/entries/{entryid}', () => {
  it('Authors and Admins delete an entry with its translations: 204; then 404', async () => {
    const e = await add(unique('chain'), [{ langid: 'de', term: 'Kette' }]);
    expect((await t.del(`/translation_glossary/entries/${e.entryid}`, { token: user.token })).statusCode).toBe(403);
    expect((await t.del(`/translation_glossary/entries/${e.entryid}`)).statusCode).toBe(401);
    expect(await storedEntry(e.entryid)).toBeDefined();
    expect((await t.del(`/translation_glossary/entries/${e.entryid}`, { token: author.token })).statusCode).toBe(204);
    expect(await storedEntry(e.entryid)).toBeUndefined();
    expect(await storedTerms(e.entryid)).toEqual([]);
    expect((await t.del(`/translation_glossary/entries/${e.entryid}`, { token: admin.token })).statusCode).toBe(404);
    expect((await t.del('/translation_glossary/entries/abc', { token: admin.token })).statusCode).toBe(422);
  });
});

describe('the default translator applies the glossary', () => {
  it('applyGlossary: whole words, any case, longer terms first, other scripts\' letters count as word characters', () => {
    const pairs = [{ term: 'belt', translation: 'Riemen' }, { term: 'drive belt', translation: 'Antriebsriemen' }, { term: 'C++', translation: 'C plus plus' }, { term: 'über', translation: 'over' }];
    expect(applyGlossary(['Drive Belt and belt', 'belts', 'seatbelt', 'the BELT.', 'C++ code', 'überall über'], pairs))
      .toEqual(['Antriebsriemen and Riemen', 'belts', 'seatbelt', 'the Riemen.', 'C plus plus code', 'überall over']);
    expect(applyGlossary(['a $1 (x)'], [{ term: '(x)', translation: '$&' }])).toEqual(['a $1 $&']);
    expect(applyGlossary(['nothing'], [])).toEqual(['nothing']);
  });

  it('machineTranslateLangid without a translation server: category display titles go through the glossary', async () => {
    const word = unique('Kettenrad');
    const title = unique('Cat ');
    await makeCategory(t, author, title, { display_title: `Conveyor ${word} parts` });
    await add(word, [{ langid: 'de', term: 'Sprocket-DE' }]);
    await add('conveyor', [{ langid: 'de', term: 'Förderband' }, { langid: 'fr', term: 'convoyeur' }]);
    const de = (await t.get('/wikis/CATEGORY?display=hierarchy&machineTranslateLangid=de')).json();
    expect(de.display_titles[title]).toBe('Förderband Sprocket-DE parts');
    const fr = (await t.get('/wikis/CATEGORY?display=hierarchy&machineTranslateLangid=fr')).json();
    expect(fr.display_titles[title]).toBe(`convoyeur ${word} parts`);
    const en = (await t.get('/wikis/CATEGORY?display=hierarchy')).json();
    expect(en.display_titles[title]).toBe(`Conveyor ${word} parts`);
  });
});

describe('single-language sites', () => {
  it('have no glossary: 404 on every glossary route, after the access check', async () => {
    const one = await buildTestApp();
    try {
      const a = await makeAuthor(one);
      const u = await makeUser(one);
      for (const [method, path] of [['GET', '/translation_glossary/entries'], ['PUT', '/translation_glossary/entries'], ['DELETE', '/translation_glossary/entries/1']] as const) {
        const res = await one.request(method, path, { token: a.token, body: method === 'PUT' ? { entries: [{ term: 'x' }] } : undefined });
        expect(res.statusCode, `${method} ${path}`).toBe(404);
        expect(res.json().message).toContain('more than one language');
      }
      expect((await one.put('/translation_glossary/entries', { token: u.token, body: {} })).statusCode).toBe(403);
      expect(await one.db.selectFrom('translation_glossary').selectAll().execute()).toEqual([]);
    } finally {
      await one.close();
    }
  });
});
