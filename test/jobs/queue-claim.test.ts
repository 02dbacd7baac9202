// The queue's claim: a poll that finds nothing due writes nothing. On SQLite any statement
// that may write moves the change version the reads kept in memory are checked against
// (db/kept-reads.ts), so a poll that ran its claiming update every time threw away every
// kept guide head and stamp, three times a second.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../helpers/app.js';
import { enqueueJob } from '../../src/jobs/queue.js';
import { changeVersion } from '../../src/db/prepared.js';

const t = appForFile();
const TYPE = 'claim_probe_test';

describe('claiming a job', () => {
  it('finds nothing due with a read alone (the change version holds), then claims the job once it is due', async () => {
    const jobid = await enqueueJob(t.db, t.clock, TYPE, { n: 1 }, { runAt: t.clock.now() + 60 });
    const before = changeVersion(t.db);
    expect(await t.app.jobs.claim([TYPE])).toBeUndefined();
    expect(changeVersion(t.db)).toBe(before);
    if (t.dialect === 'sqlite') expect(before).toBeDefined();
    t.clock.advance(60);
    const claimed = await t.app.jobs.claim([TYPE]);
    expect(claimed).toMatchObject({ jobid, status: 'running', attempts: 1 });
    if (t.dialect === 'sqlite') expect(changeVersion(t.db)).not.toBe(before);
    // Claimed: not due again until its lease ends.
    expect(await t.app.jobs.claim([TYPE])).toBeUndefined();
    await t.db.deleteFrom('jobs').where('jobid', '=', jobid).execute();
  });
});
