// JOB_WORKERS=false (docs/deployment.md, "How the job queue spreads work"): a node that
// claims no jobs still enqueues them. Two apps with the worker polling every 20 ms: with
// JOB_WORKERS=false `jobs.start()` starts no polling and the queued mail stays pending
// (it is due, and a drain runs it, so only the missing worker kept it); with the default
// the same mail is sent by the polling worker.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { buildTestApp, type TestApp } from '../helpers/app.js';
import { makeUser } from '../helpers/factories.js';
import { loadConfig } from '../../src/config.js';

let webOnly: TestApp;
let worker: TestApp;

beforeAll(async () => {
  [webOnly, worker] = await Promise.all([
    buildTestApp({ config: { jobWorkers: false, jobPollMs: 20 } }),
    buildTestApp({ config: { jobPollMs: 20 } }),
  ]);
});
afterAll(async () => {
  await Promise.all([webOnly?.close(), worker?.close()]);
});

/** Asks for a password reset (a mail job) and answers the job's id. */
async function queueMail(t: TestApp): Promise<number> {
  const u = await makeUser(t);
  expect((await t.post('/users/reset_password', { body: { email: u.email } })).statusCode).toBe(200);
  const job = await t.db.selectFrom('jobs').select(['jobid', 'status', 'run_at']).where('type', '=', 'mail.send').orderBy('jobid', 'desc').executeTakeFirstOrThrow();
  expect(job.status).toBe('pending');
  expect(Number(job.run_at)).toBeLessThanOrEqual(t.clock.now());
  return job.jobid;
}

const statusOf = async (t: TestApp, jobid: number) => (await t.db.selectFrom('jobs').select('status').where('jobid', '=', jobid).executeTakeFirstOrThrow()).status;

describe('JOB_WORKERS', () => {
  it('is on by default and read as a switch', () => {
    expect(loadConfig({}).jobWorkers).toBe(true);
    expect(loadConfig({ JOB_WORKERS: 'false' }).jobWorkers).toBe(false);
    expect(() => loadConfig({ JOB_WORKERS: 'nope' })).toThrow('JOB_WORKERS must be one of 1, true, yes, on, 0, false, no, off, got "nope"');
  });

  it('false: the node enqueues jobs but never starts claiming them', async () => {
    webOnly.app.jobs.start();
    expect(webOnly.app.jobs.polling).toBe(false);
    const jobid = await queueMail(webOnly);
    // Due, and nothing polls (no timer to claim it): pending.
    expect(await statusOf(webOnly, jobid)).toBe('pending');
    // The job itself runs where a worker claims it (here a drain, as another node would).
    expect(await webOnly.app.jobs.runDue()).toBe(1);
    expect(await statusOf(webOnly, jobid)).toBe('done');
  });

  it('true (the default): the started worker claims and runs the same job', async () => {
    worker.app.jobs.start();
    expect(worker.app.jobs.polling).toBe(true);
    const jobid = await queueMail(worker);
    await vi.waitFor(async () => expect(await statusOf(worker, jobid)).toBe('done'), { timeout: 30_000, interval: 20 });
    await worker.app.jobs.stop();
    expect(worker.app.jobs.polling).toBe(false);
  });
});
