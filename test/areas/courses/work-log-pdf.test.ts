// The work log PDF's cost is bounded (issue 61 §3): a form field of 10 000 characters
// without a break (accepted, as the schema allows) prints, in a worker thread, while other
// requests are served; the stretches of work listed are bounded, the rest counted; a PDF is
// kept per entry while what it shows is unchanged; the renderer's queue and time are bounded
// (503); it lists the entry's audit entries with their ids and hashes, and the same entry
// gives the same bytes. The worker's file is found from the sources (here) and from the
// build (test/build/pdf-worker-build.test.ts).
import { describe, expect, it } from 'vitest';
import { appForFile, buildTestApp, type TestApp } from '../../helpers/app.js';
import { makeAuthor, makeUser, type TestUser } from '../../helpers/factories.js';
import { addStep, makePublishedGuide } from '../../helpers/factories/guides.js';
import { pdfText } from '../../helpers/pdf-text.js';
import { PdfRenderer } from '../../../src/pdf/pdf.renderer.js';
import { workLogPdfContent } from '../../../src/areas/courses/courses.pdf.js';
import { findEntry } from '../../../src/areas/work-log/work-log.queries.js';

/** The attack's value: one word of 10 000 characters. */
const WORD = Array.from({ length: 1000 }, (_, i) => `w${String(i).padStart(3, '0')}xyzab`).join('');

/** A guide whose one step has a text field, performed by `who` with `value` and finished. */
async function finishedEntry(t: TestApp, author: TestUser, who: TestUser, value: string) {
  const guide = await addStep(t, author, await makePublishedGuide(t, author, 1), { title: 'Inspect', fields: [{ type: 'text', label: 'Remarks' }] });
  const field = guide.steps.at(-1).fields[0].field_revisionid;
  const entry = (await t.post('/work_log', { token: who.token, body: { guideid: guide.guideid } })).json();
  const put = await t.put(`/work_log/${entry.entryid}/stepData`, { token: who.token, body: { fields: { [field]: value } } });
  expect(put.statusCode, put.body.slice(0, 300)).toBe(200);
  const fin = await t.post(`/work_log/${entry.entryid}/finish`, { token: who.token });
  expect(fin.statusCode, fin.body.slice(0, 300)).toBe(200);
  return { entryid: entry.entryid as number, guideid: guide.guideid as number };
}
const pdfOf = (t: TestApp, who: TestUser, entryid: number) => t.get(`/courses/work_log/${entryid}/pdf`, { token: who.token });

describe('the work log PDF', () => {
  let author: TestUser, user: TestUser;
  const t = appForFile({}, async () => {
    [author, user] = await Promise.all([makeAuthor(t), makeUser(t)]);
  });

  it('a 10 000-character word prints (200, a PDF with the whole text), and other requests are served meanwhile', async () => {
    const { entryid, guideid } = await finishedEntry(t, author, user, WORD);
    let pdfDone = false;
    const pdf = pdfOf(t, user, entryid).then((res) => {
      pdfDone = true;
      return res;
    });
    // Served while the PDF is made: each answers before the PDF does.
    for (let i = 0; i < 5; i++) {
      expect((await t.get(`/guides/${guideid}`)).statusCode).toBe(200);
      expect(pdfDone, `request ${i} answered after the PDF`).toBe(false);
    }
    const res = await pdf;
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect(res.rawPayload.subarray(-6).toString()).toContain('%%EOF');
    const text = pdfText(res.rawPayload);
    expect(text).toContain('Remarks: ');
    // Broken into lines, and into runs at zero-width spaces (a space glyph of no width, whose text is a space).
    expect(text.replace(/[\s\u200B]/g, '')).toContain(`Remarks:${WORD}(`);
  }, 60_000);

  it('the stretches of work listed are bounded; the rest are counted', async () => {
    const { entryid } = await finishedEntry(t, author, user, 'short');
    const start = t.clock.now() - 100_000;
    await t.db.insertInto('work_log_timings').values(Array.from({ length: 120 }, (_, i) => ({ entryid, stepid: null, userid: user.userid, start_date: start + i * 100, end_date: start + i * 100 + 50 }))).execute();
    const res = await pdfOf(t, user, entryid);
    expect(res.statusCode).toBe(200);
    const text = pdfText(res.rawPayload);
    const listed = text.split('\n').filter((l) => / UTC to .* by /.test(l) && !l.includes('paused'));
    expect(listed.length).toBe(50);
    // 120 inserted and the one of the entry itself.
    expect(text).toContain('and 71 more stretches of work, not listed');
  }, 60_000);

  it('a PDF is kept while what it shows is unchanged, and made again when it changes', async () => {
    const { entryid } = await finishedEntry(t, author, user, 'kept');
    const first = await pdfOf(t, user, entryid);
    const again = await pdfOf(t, user, entryid);
    expect(first.statusCode).toBe(200);
    // PDFKit stamps each PDF it makes with its time: the same bytes are the kept PDF.
    expect(Buffer.compare(first.rawPayload, again.rawPayload)).toBe(0);
    await t.db.updateTable('users').set({ username: 'Renamed performer' }).where('userid', '=', user.userid).execute();
    const changed = await pdfOf(t, user, entryid);
    expect(pdfText(changed.rawPayload)).toContain('Performed by Renamed performer');
  }, 60_000);

  it('lists the audit entries recorded for the entry with their ids and hashes; the same entry gives the same bytes', async () => {
    const { entryid } = await finishedEntry(t, author, user, 'audited');
    // The work log's own changes are audited: started and finished through the API.
    const entries = await t.db.selectFrom('audit_log').select(['auditid', 'action', 'hash']).where('resource_type', '=', 'work_log_entry').where('resource_id', '=', String(entryid)).orderBy('auditid').execute();
    expect(entries.map((e) => e.action)).toEqual(expect.arrayContaining(['work_log.started', 'work_log.finished']));
    const res = await pdfOf(t, user, entryid);
    const text = pdfText(res.rawPayload).replace(/[\s\u200B]/g, '');
    expect(text).not.toContain('Noauditentries');
    for (const e of entries) expect(text).toContain(`audit#${e.auditid}`);
    // By the performer's name as it is now (an earlier test renames them).
    const { username } = await t.db.selectFrom('users').select('username').where('userid', '=', user.userid).executeTakeFirstOrThrow();
    for (const e of entries) expect(text).toContain(`${e.action}by${username.replace(/\s/g, '')}hash${e.hash}`);
    // Rendered again by another renderer (another worker), later: the same bytes.
    t.clock.advance(3600);
    const renderer = new PdfRenderer({ pdfWarmStart: false, pdfQueueSize: 2, pdfTimeoutMs: 60_000, pdfKeptMb: 1 });
    try {
      const again = await renderer.workLogPdf(await workLogPdfContent(t.db, t.clock.now(), (await findEntry(t.db, entryid))!));
      expect(Buffer.compare(res.rawPayload, again)).toBe(0);
    } finally {
      await renderer.close();
    }
  }, 60_000);
});

describe('the PDF renderer\'s bounds', () => {
  it('past PDF_QUEUE_SIZE PDFs waiting: 503 with Retry-After; the others are made', async () => {
    const t = await buildTestApp({ config: { pdfQueueSize: 1 } });
    try {
      const [author, user] = await Promise.all([makeAuthor(t), makeUser(t)]);
      const entries = [];
      for (let i = 0; i < 4; i++) entries.push((await finishedEntry(t, author, user, `value ${i}`)).entryid);
      const answers = await Promise.all(entries.map((id) => pdfOf(t, user, id)));
      const statuses = answers.map((a) => a.statusCode);
      expect(statuses.filter((s) => s === 200).length, String(statuses)).toBeGreaterThanOrEqual(1);
      const refused = answers.filter((a) => a.statusCode === 503);
      expect(refused.length, String(statuses)).toBeGreaterThanOrEqual(1);
      expect(refused[0].json().code).toBe('unavailable');
      expect(Number(refused[0].headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await t.close();
    }
  }, 60_000);

  it('past PDF_TIMEOUT_MS: 503 (the worker is ended)', async () => {
    const t = await buildTestApp({ config: { pdfTimeoutMs: 1 } });
    try {
      const [author, user] = await Promise.all([makeAuthor(t), makeUser(t)]);
      const { entryid } = await finishedEntry(t, author, user, WORD);
      const res = await pdfOf(t, user, entryid);
      expect(res.statusCode).toBe(503);
      expect(res.json().code).toBe('unavailable');
    } finally {
      await t.close();
    }
  }, 60_000);
});
