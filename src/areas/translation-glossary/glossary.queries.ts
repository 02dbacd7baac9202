// Reading and writing the translation glossary. Records are built with one query for the
// translations of a whole page; a PUT validates everything before it writes anything.
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import { HttpError, invalidField, unprocessable, type FieldError } from '../../http/errors.js';
import type { GlossaryEntryTable } from './glossary.tables.js';
import type { GlossaryEntry, GlossaryPut } from './glossary.schemas.js';

export type GlossaryRow = Selectable<GlossaryEntryTable>;
type Db = Kysely<Database>;

/** The glossary is read whole (GET without `limit`, the machine translator), so its size is bounded. */
export const MAX_GLOSSARY_ENTRIES = 10_000;

/** The glossary exists on sites with more than one language (the specification's rule): 404 elsewhere. */
export function requireGlossary(config: Config) {
  if (config.languages.length < 2) throw new HttpError(404, 'not_found', 'The translation glossary is only available on sites with more than one language (LANGUAGES).');
}

export interface GlossaryFilter {
  source_langid?: string;
  langid?: string;
  order?: 'ASC' | 'DESC';
  limit?: number;
  offset: number;
}

/** The entries in a source language and/or with a translation into `langid`, by entryid; without `limit`, all of them (at most MAX_GLOSSARY_ENTRIES). */
export function listGlossaryEntries(db: Db, q: GlossaryFilter): Promise<GlossaryRow[]> {
  let query = db.selectFrom('translation_glossary as g').selectAll('g');
  if (q.source_langid) query = query.where('g.source_langid', '=', q.source_langid);
  if (q.langid) {
    const langid = q.langid;
    query = query.where((eb) => eb.exists(eb.selectFrom('translation_glossary_terms as t').select('t.entryid').whereRef('t.entryid', '=', 'g.entryid').where('t.langid', '=', langid)));
  }
  return query.orderBy('g.entryid', q.order === 'DESC' ? 'desc' : 'asc').limit(q.limit ?? MAX_GLOSSARY_ENTRIES).offset(q.offset).execute();
}

/** The entries with these ids (a PUT's result: at most 200). */
export async function loadGlossaryEntries(db: Db, entryids: number[]): Promise<GlossaryRow[]> {
  return entryids.length ? db.selectFrom('translation_glossary').selectAll().where('entryid', 'in', entryids).execute() : [];
}

/** Deletes an entry with its translations (in the caller's transaction); false when there was none. */
export async function deleteGlossaryEntry(trx: Db, entryid: number): Promise<boolean> {
  await trx.deleteFrom('translation_glossary_terms').where('entryid', '=', entryid).execute();
  const gone = await trx.deleteFrom('translation_glossary').where('entryid', '=', entryid).executeTakeFirst();
  return Number(gone.numDeletedRows) > 0;
}

async function inChunks<T>(ids: number[], load: (chunk: number[]) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let i = 0; i < ids.length; i += 500) out.push(...await load(ids.slice(i, i + 500)));
  return out;
}

export async function glossaryRecords(db: Db, rows: GlossaryRow[]): Promise<GlossaryEntry[]> {
  const terms = await inChunks(rows.map((r) => r.entryid), (chunk) =>
    db.selectFrom('translation_glossary_terms').selectAll().where('entryid', 'in', chunk).orderBy('entryid').orderBy('langid').execute());
  const byEntry = new Map<number, Array<{ langid: string; term: string }>>();
  for (const t of terms) byEntry.set(t.entryid, [...(byEntry.get(t.entryid) ?? []), { langid: t.langid, term: t.term }]);
  return rows.map((r) => ({
    entryid: r.entryid,
    source_langid: r.source_langid,
    term: r.term,
    translations: byEntry.get(r.entryid) ?? [],
    notes: r.notes,
    created_date: r.created_date,
    modified_date: r.modified_date,
    userid_modified: r.userid_modified,
  }));
}

interface Planned {
  index: number;
  entryid: number | null;
  source_langid: string;
  term: string;
  notes?: string;
  translations?: Array<{ langid: string; term: string }>;
}

const termKey = (langid: string, term: string) => `${langid}\u0000${term.toLowerCase()}`;

/**
 * Validates a PUT against the site's languages and the stored glossary, and returns what
 * to write; a 422 naming every bad field otherwise (nothing written).
 */
async function plan(db: Db, config: Config, body: GlossaryPut): Promise<{ changes: Planned[]; deletes: number[] }> {
  const errors: FieldError[] = [];
  const entries = body.entries ?? [];
  const deletes = [...new Set(body.delete ?? [])];
  const err = (field: string, message: string, code = 'invalid_value') => {
    const m = /\[(\d+)\]/.exec(field);
    errors.push({ field, code, message, ...(m ? { index: Number(m[1]) } : {}) });
  };
  const referenced = [...new Set([...entries.flatMap((e) => (e.entryid ? [e.entryid] : [])), ...deletes])];
  const existing = new Map((await inChunks(referenced, (chunk) => db.selectFrom('translation_glossary').selectAll().where('entryid', 'in', chunk).execute())).map((r) => [r.entryid, r]));
  const language = (field: string, langid: string) => {
    if (!config.languages.includes(langid)) err(field, `${field} must be one of the site's languages: ${config.languages.join(', ')}.`);
  };
  deletes.forEach((id) => {
    if (!existing.has(id)) err(`delete[${(body.delete ?? []).indexOf(id)}]`, `No glossary entry ${id}.`);
  });
  const seenIds = new Set<number>();
  const changes: Planned[] = [];
  entries.forEach((e, i) => {
    const at = `entries[${i}]`;
    const row = e.entryid ? existing.get(e.entryid) : undefined;
    if (e.entryid) {
      if (!row) err(`${at}.entryid`, `No glossary entry ${e.entryid}.`);
      else if (deletes.includes(e.entryid)) err(`${at}.entryid`, `Entry ${e.entryid} is also in delete.`);
      else if (seenIds.has(e.entryid)) err(`${at}.entryid`, `Entry ${e.entryid} is listed twice.`, 'duplicate');
      seenIds.add(e.entryid);
    }
    const source = e.source_langid ?? row?.source_langid ?? config.languages[0];
    if (e.source_langid !== undefined) language(`${at}.source_langid`, e.source_langid);
    const term = e.term !== undefined ? e.term.trim() : row?.term;
    if ((term === undefined && !e.entryid) || term === '') err(`${at}.term`, `${at}.term is required.`, 'missing_field');
    const langs = new Set<string>();
    const translations = e.translations?.map((tr, j) => {
      const tat = `${at}.translations[${j}]`;
      language(`${tat}.langid`, tr.langid);
      if (tr.langid === source) err(`${tat}.langid`, `A translation cannot be in the entry's source language (${source}).`);
      if (langs.has(tr.langid)) err(`${tat}.langid`, `Two translations into ${tr.langid}: an entry has one per language.`, 'duplicate');
      langs.add(tr.langid);
      const text = tr.term.trim();
      if (!text) err(`${tat}.term`, `${tat}.term is required.`, 'missing_field');
      return { langid: tr.langid, term: text };
    });
    changes.push({ index: i, entryid: row?.entryid ?? null, source_langid: source, term: term ?? '', notes: e.notes?.trim(), translations });
  });
  if (errors.length) throw unprocessable(errors);

  // Terms are unique per source language: within the request, and against the entries
  // that stay. Adding a term the glossary has already modifies that entry (PUT: create or replace).
  const byKey = new Map<string, Planned>();
  for (const c of changes) {
    const key = termKey(c.source_langid, c.term);
    if (byKey.has(key)) err(`entries[${c.index}].term`, `"${c.term}" is in the request twice.`, 'duplicate');
    byKey.set(key, c);
  }
  const explicit = new Set(changes.flatMap((c) => (c.entryid ? [c.entryid] : [])));
  const lowers = [...new Set(changes.map((c) => c.term.toLowerCase()))];
  for (let i = 0; i < lowers.length; i += 500) {
    const rows = await db.selectFrom('translation_glossary').select(['entryid', 'source_langid', 'term', 'term_lower']).where('term_lower', 'in', lowers.slice(i, i + 500)).execute();
    for (const r of rows) {
      const c = byKey.get(termKey(r.source_langid, r.term_lower));
      // Gone, the same entry, or renamed by this request (its term is free): no clash.
      if (!c || c.entryid === r.entryid || deletes.includes(r.entryid) || explicit.has(r.entryid)) continue;
      if (c.entryid === null) c.entryid = r.entryid;
      else err(`entries[${c.index}].term`, `The glossary has "${r.term}" in ${r.source_langid} already (entry ${r.entryid}).`, 'duplicate');
    }
  }
  // An entry whose source language changes keeps its translations: none may be in the new source language.
  const keptTranslations = changes.filter((c) => c.entryid && existing.has(c.entryid) && !c.translations && c.source_langid !== existing.get(c.entryid)!.source_langid);
  if (keptTranslations.length) {
    const clash = await db.selectFrom('translation_glossary_terms').select(['entryid', 'langid'])
      .where('entryid', 'in', keptTranslations.map((c) => c.entryid!)).execute();
    for (const c of keptTranslations) {
      if (clash.some((t) => t.entryid === c.entryid && t.langid === c.source_langid)) err(`entries[${c.index}].source_langid`, `The entry has a translation into ${c.source_langid}: send the new translations too.`);
    }
  }
  if (errors.length) throw unprocessable(errors);
  return { changes, deletes };
}

/** Applies a PUT inside the caller's transaction; answers the entryids added or modified (in order) and those deleted. */
export async function applyGlossaryPut(trx: Db, config: Config, now: number, userid: number, body: GlossaryPut): Promise<{ entryids: number[]; deleted: number[] }> {
  const { changes, deletes } = await plan(trx, config, body);
  const gone = () => new HttpError(404, 'not_found', 'A glossary entry of the request was deleted meanwhile.');
  if (deletes.length) {
    await trx.deleteFrom('translation_glossary_terms').where('entryid', 'in', deletes).execute();
    const out = await trx.deleteFrom('translation_glossary').where('entryid', 'in', deletes).executeTakeFirst();
    if (Number(out.numDeletedRows) !== deletes.length) throw gone();
  }
  const entryids: number[] = [];
  for (const c of changes) {
    let entryid = c.entryid;
    if (entryid === null) {
      entryid = (await trx.insertInto('translation_glossary').values({
        source_langid: c.source_langid, term: c.term, term_lower: c.term.toLowerCase(), notes: c.notes ?? '', created_date: now, modified_date: now, userid_modified: userid,
      }).returning('entryid').executeTakeFirstOrThrow()).entryid;
    } else {
      const out = await trx.updateTable('translation_glossary').set({
        source_langid: c.source_langid, term: c.term, term_lower: c.term.toLowerCase(), ...(c.notes !== undefined ? { notes: c.notes } : {}), modified_date: now, userid_modified: userid,
      }).where('entryid', '=', entryid).executeTakeFirst();
      if (Number(out.numUpdatedRows) === 0) throw gone();
      if (c.translations) await trx.deleteFrom('translation_glossary_terms').where('entryid', '=', entryid).execute();
    }
    if (c.translations?.length) {
      const id = entryid;
      await trx.insertInto('translation_glossary_terms').values(c.translations.map((t) => ({ entryid: id, langid: t.langid, term: t.term }))).execute();
    }
    entryids.push(entryid);
  }
  if (changes.some((c) => c.entryid === null)) {
    const { n } = await trx.selectFrom('translation_glossary').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
    if (Number(n) > MAX_GLOSSARY_ENTRIES) throw invalidField('entries', `The glossary holds at most ${MAX_GLOSSARY_ENTRIES} entries: delete some first.`, 'out_of_range');
  }
  return { entryids, deleted: deletes };
}

/** Source term -> translation, for one pair of languages. */
export async function glossaryPairs(db: Db, from: string, to: string): Promise<Array<{ term: string; translation: string }>> {
  return db.selectFrom('translation_glossary as g').innerJoin('translation_glossary_terms as t', 't.entryid', 'g.entryid')
    .select(['g.term as term', 't.term as translation']).where('g.source_langid', '=', from).where('t.langid', '=', to).execute();
}
