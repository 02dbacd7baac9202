// The guide row's prepared lookup (db/prepared.ts) runs outside Kysely's executor; on
// SQLite it shares the one connection with transactions. A read that arrives while
// another request's transaction is open must not see that transaction's writes, and must
// see them once it commits.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, type TestUser } from '../../helpers/factories.js';
import { makePublishedGuide } from '../../helpers/factories/guides.js';
import { findGuideHead, findGuideRow } from '../../../src/areas/guides/guides.queries.js';
import { prepared } from '../../../src/db/prepared.js';

let author: TestUser;
const t = appForFile({ config: { languages: ['en', 'de'] } }, async () => {
  author = await makeAuthor(t);
});

/** Runs `during` while a transaction that renamed the guide is open, then commits or rolls back. */
async function renameAround(guideid: number, title: string, outcome: 'commit' | 'rollback', during: () => Promise<unknown>) {
  let pending: Promise<unknown> | undefined;
  const failed = new Error('rolled back on purpose');
  try {
    await t.db.transaction().execute(async (trx) => {
      // As an edit does: a new revisionid (what the read cache checks) with the new title.
      await trx.updateTable('guides').set((eb) => ({ title, revisionid: eb('revisionid', '+', 1000) })).where('guideid', '=', guideid).execute();
      pending = during();
      // Let the read start (and, on SQLite, find the connection busy) before the end.
      for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
      if (outcome === 'rollback') throw failed;
    });
  } catch (err) {
    if (err !== failed) throw err;
  }
  return pending;
}

describe('prepared lookups and open transactions', () => {
  it('a read during a transaction that rolls back sees the row as it was', async () => {
    const g = await makePublishedGuide(t, author, 0, { title: 'Before the rollback' });
    const row = (await renameAround(g.guideid, 'Never committed', 'rollback', () => findGuideRow(t.db, t.app.config, g.guideid))) as { title: string };
    expect(row.title).toBe('Before the rollback');
    expect((await t.get(`/guides/${g.guideid}`)).json().title).toBe('Before the rollback');
  });

  it('a read during a transaction that commits sees the row before or after it, never in between', async () => {
    const g = await makePublishedGuide(t, author, 0, { title: 'Before the commit' });
    const read = (await renameAround(g.guideid, 'After the commit', 'commit', () => t.get(`/guides/${g.guideid}`))) as { json(): { title: string } };
    expect(['Before the commit', 'After the commit']).toContain(read.json().title);
    expect((await findGuideRow(t.db, t.app.config, g.guideid))!.title).toBe('After the commit');
    expect((await t.get(`/guides/${g.guideid}`)).json().title).toBe('After the commit');
  });

  it('finds a guide by its default language, another language, and a deleted one only when asked', async () => {
    const g = await makePublishedGuide(t, author, 0, { title: 'In English' });
    const de = await t.post('/guides', { token: author.token, body: { guideid: g.guideid, langid: 'de', type: 'replacement', title: 'Auf Deutsch', category: g.category } });
    expect(de.statusCode, de.body).toBe(201);
    expect((await findGuideRow(t.db, t.app.config, g.guideid))!.langid).toBe('en');
    expect((await findGuideRow(t.db, t.app.config, g.guideid, 'de'))!.title).toBe('Auf Deutsch');
    await t.db.updateTable('guides').set({ deleted: 1 }).where('guideid', '=', g.guideid).where('langid', '=', 'en').execute();
    // The default language deleted: the other language answers; the deleted one only with includeDeleted.
    expect((await findGuideRow(t.db, t.app.config, g.guideid))!.langid).toBe('de');
    expect((await findGuideRow(t.db, t.app.config, g.guideid, 'en'))).toBeUndefined();
    expect((await findGuideRow(t.db, t.app.config, g.guideid, undefined, { includeDeleted: true }))!.langid).toBe('en');
    // The head (what a read checks before its cached record) is found the same way, deleted rows never.
    expect((await findGuideHead(t.db, t.app.config, g.guideid))!.langid).toBe('de');
    expect((await findGuideHead(t.db, t.app.config, g.guideid, 'de'))!.revisionid).toBe((await findGuideRow(t.db, t.app.config, g.guideid, 'de'))!.revisionid);
    expect(await findGuideHead(t.db, t.app.config, g.guideid, 'en')).toBeUndefined();
    expect(await findGuideHead(t.db, t.app.config, 999_999)).toBeUndefined();
  });

  it('the head tells whether the site has any approval process', async () => {
    const g = await makePublishedGuide(t, author, 0);
    expect((await findGuideHead(t.db, t.app.config, g.guideid))!.approvals).toBe(0);
    const admin = await makeAdmin(t);
    const made = await t.post('/approvals/process', { token: admin.token, body: { name: 'Release check', stages: [{ userid: admin.userid }] } });
    expect(made.statusCode, made.body).toBe(201);
    expect((await findGuideHead(t.db, t.app.config, g.guideid))!.approvals).toBe(1);
  });

  it('a prepared statement given a transaction runs inside it, compiled once for the database and all its transactions', async () => {
    const g = await makePublishedGuide(t, author, 0, { title: 'Prepared inside' });
    let builds = 0;
    const titleOf = prepared<{ guideid: number }, { title: string }>('test_title_of', (db, arg) => {
      builds++;
      return db.selectFrom('guides').select('title').where('guideid', '=', arg('guideid'));
    });
    const failed = new Error('rolled back on purpose');
    for (const title of ['First try', 'Second try']) {
      await expect(t.db.transaction().execute(async (trx) => {
        await trx.updateTable('guides').set({ title }).where('guideid', '=', g.guideid).execute();
        // Its own uncommitted write: the statement ran in the transaction, not beside it.
        expect((await titleOf(trx, { guideid: g.guideid }))[0].title).toBe(title);
        throw failed;
      })).rejects.toBe(failed);
    }
    expect((await titleOf(t.db, { guideid: g.guideid }))[0].title).toBe('Prepared inside');
    expect(builds).toBe(1);
  });
});
