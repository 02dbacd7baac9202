// Malicious media against the video pipeline (issue: "the video pipeline trusts what
// ffmpeg guesses"). Each ends as a clean 422 that stores nothing, or as a failed item,
// with the worker free for the next job and no program left running. The files are built
// here (as bytes, or with ffmpeg); the limits are configured tiny so nothing runs long.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { buildTestApp, type TestApp, appForFile } from '../../helpers/app.js';
import { makeUser, type TestUser } from '../../helpers/factories.js';
import { hasFfmpeg, noteSkippedWithoutFfmpeg, storedKeys, testVideo, upload } from '../../helpers/factories/media.js';
import { dashBehindAtom, gappedMp4, hlsBehindAtom, hugeTagsWebm, plainMp4, plainVideo } from '../../helpers/factories/hostile-media.js';
import { expectGroupGone } from '../../helpers/processes.js';
import { runningPrograms } from '../../../src/process-runner.js';
import { VIDEO_JOB } from '../../../src/areas/media/videos.js';

noteSkippedWithoutFfmpeg('video attack tests (test/areas/media/video-attacks.test.ts)');

const originals = async (t: TestApp) => (await storedKeys(t, 'originals')).length;
const videoCount = async (t: TestApp) => (await t.db.selectFrom('videos').select('videoid').execute()).length;
const videoJob = (t: TestApp, videoid: number) => t.db.selectFrom('jobs').selectAll().where('type', '=', VIDEO_JOB).where('payload', 'like', `%:${videoid}}`).executeTakeFirstOrThrow();
const videoRow = (t: TestApp, videoid: number) => t.db.selectFrom('videos').select(['state', 'state_reason']).where('videoid', '=', videoid).executeTakeFirstOrThrow();

/** Uploads and expects a 422 on `file` that stored nothing and queued no job. */
async function expectRefused(t: TestApp, user: TestUser, data: Buffer, name: string, code = 'invalid_value') {
  const [files, videos] = [await originals(t), await videoCount(t)];
  const res = await upload(t, user, data, name);
  expect(res.statusCode, res.body).toBe(422);
  expect(res.json().errors[0]).toMatchObject({ field: 'file', code });
  expect(await originals(t)).toBe(files);
  expect(await videoCount(t)).toBe(videos);
  expect(await t.app.jobs.runDue()).toBe(0);
  return res.json().errors[0].message as string;
}

describe.skipIf(!hasFfmpeg)('malicious videos at upload', () => {
  let user: TestUser;
  let secret: string;
  const t = appForFile({ config: { videoMaxSeconds: 60, videoMaxDimension: 128, videoProbeMaxOutputBytes: 16 * 1024 } }, async () => {
    user = await makeUser(t);
    // A file on the server's disk the attacker knows the path of.
    secret = join(t.config.dataDir, 'secret.mp4');
    writeFileSync(secret, plainMp4());
  });

  it('a DASH manifest behind "free" cannot make ffmpeg encode a server file', async () => {
    await expectRefused(t, user, dashBehindAtom(secret), 'clip.mov');
  });

  it('an HLS playlist behind an atom header is refused', async () => {
    await expectRefused(t, user, hlsBehindAtom(secret), 'clip.mov');
  });

  it('a live DASH manifest (which loops ffprobe forever) is refused at once', async () => {
    await expectRefused(t, user, dashBehindAtom(secret, true), 'live.mov');
    expect(runningPrograms()).toEqual([]);
  });

  it('any bytes behind a bare atom header are not a video', async () => {
    for (const atom of ['free', 'skip', 'wide', 'mdat']) {
      await expectRefused(t, user, Buffer.concat([Buffer.from([0, 0, 0, 8]), Buffer.from(atom), Buffer.from('<html><script>alert(1)</script></html>')]), `x.mov`);
    }
  });

  it('a real QuickTime file that starts with a bare atom is kept once ffprobe finds its video stream', async () => {
    const mov = plainVideo('mov');
    expect(mov.toString('latin1', 4, 12)).toBe('ftypqt  ');
    // The same movie with its ftyp box turned into a `free` one (same size, so the sample
    // offsets still hold), as old QuickTime files are: it starts with a bare atom.
    const bare = Buffer.from(mov);
    bare.write('free', 4, 'latin1');
    const item = (await upload(t, user, bare, 'old.mov')).json();
    expect(item).toMatchObject({ type: 'GuideVideoObject', state: 'queued', mime: 'video/quicktime' });
    await t.app.jobs.runDue();
    const job = await videoJob(t, item.id);
    expect(job.last_error).toBeNull();
    expect(await videoRow(t, item.id)).toMatchObject({ state: 'finished' });
  });

  it('a video declaring a duration over the limit is refused before any encode', async () => {
    const message = await expectRefused(t, user, gappedMp4(600), 'long.mp4', 'out_of_range');
    expect(message).toMatch(/lasts 600 seconds; at most 60/);
  });

  it('a video larger than the dimension limit is refused', async () => {
    expect(await expectRefused(t, user, testVideo('mp4'), 'big.mp4', 'out_of_range')).toContain('at most 128 pixels');
  });

  it('a WebM with huge metadata tags is read without its tags (the answer stays under the cap) and encoded', async () => {
    const item = (await upload(t, user, hugeTagsWebm(100_000), 'tags.webm')).json();
    expect(item).toMatchObject({ type: 'GuideVideoObject', state: 'queued' });
    await t.app.jobs.runDue();
    expect(await videoRow(t, item.id)).toMatchObject({ state: 'finished' });
  });

  it('a job whose process dies each time is failed for good after its maximum attempts', async () => {
    const item = (await upload(t, user, plainMp4(), 'crashy.mp4')).json();
    const job = await videoJob(t, item.id);
    // Five workers claim it and die before finishing; each lease runs out on the app's clock.
    for (let i = 0; i < job.max_attempts; i++) {
      expect((await t.app.jobs.claim([VIDEO_JOB]))?.jobid).toBe(job.jobid);
      t.clock.advance(t.config.jobLeaseSeconds + 1);
    }
    await t.app.jobs.runDue();
    expect(await videoJob(t, item.id)).toMatchObject({ status: 'failed', attempts: job.max_attempts });
    expect(await videoRow(t, item.id)).toMatchObject({ state: 'failed' });
    expect((await videoRow(t, item.id)).state_reason).toMatch(/gave up after 5 attempts/);
    // ...and it is never taken again.
    t.clock.advance(24 * 3600);
    expect(await t.app.jobs.runDue()).toBe(0);
  });
});

describe.skipIf(!hasFfmpeg)('video jobs are bounded', () => {
  it('an encode over its time limit is killed and the item failed for good; the next job runs', async () => {
    const t = await buildTestApp({ config: { videoMaxSeconds: 1_000_000, videoEncodeTimeoutMs: 3000 } });
    try {
      const user = await makeUser(t);
      // Declares 100 000 seconds at 10 frames a second: a million frames to write.
      const item = (await upload(t, user, gappedMp4(100_000), 'hours.mp4')).json();
      expect(item.state).toBe('queued');
      await t.app.jobs.runDue();
      const row = await videoRow(t, item.id);
      expect(row.state).toBe('failed');
      expect(row.state_reason).toMatch(/took longer than 3000 ms/);
      expect(await videoJob(t, item.id)).toMatchObject({ status: 'done', attempts: 1 });
      expect(runningPrograms()).toEqual([]);
      // The worker is free: the next video goes through.
      const next = (await upload(t, user, plainMp4(), 'next.mp4')).json();
      await t.app.jobs.runDue();
      expect(await videoRow(t, next.id)).toMatchObject({ state: 'finished' });
      expect(readdirSync(join(t.config.dataDir, 'tmp', 'video'))).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('an encoding that reaches the size cap (-fs) fails the video instead of being kept cut short', async () => {
    const t = await buildTestApp({ config: { videoEncodeMaxBytes: 4000 } });
    try {
      const user = await makeUser(t);
      const item = (await upload(t, user, gappedMp4(60), 'minute.mp4')).json();
      await t.app.jobs.runDue();
      const row = await videoRow(t, item.id);
      expect(row.state).toBe('failed');
      expect(row.state_reason).toMatch(/reached the limit of 4000 bytes/);
      expect(await t.db.selectFrom('video_encodings').select('encodingid').where('videoid', '=', item.id).execute()).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it('a long encode delays no mail, stops when its item is deleted, and leaves no program at shutdown', async () => {
    const t = await buildTestApp({ config: { videoMaxSeconds: 1_000_000, jobPollMs: 20 } });
    let closed = false;
    try {
      const user = await makeUser(t);
      t.app.jobs.start();
      const item = (await upload(t, user, gappedMp4(100_000), 'hours.mp4')).json();
      // The probe (ffprobe) runs first and briefly; the encode (ffmpeg) is the long program.
      const pgid = await vi.waitFor(() => {
        const p = runningPrograms();
        expect(p.length).toBe(1);
        expect(readFileSync(`/proc/${p[0]}/cmdline`, 'utf8')).toMatch(/(^|\/)ffmpeg\0/);
        return p[0]!;
      }, { timeout: 10_000, interval: 20 });
      await vi.waitFor(async () => expect((await videoRow(t, item.id)).state).toBe('processing'), { timeout: 10_000, interval: 20 });

      // A reset mail is delivered while ffmpeg works: mail has its own lane.
      expect((await t.post('/users/reset_password', { body: { email: user.email } })).statusCode).toBe(200);
      await vi.waitFor(async () => {
        const mail = await t.db.selectFrom('jobs').select('status').where('type', '=', 'mail.send').executeTakeFirstOrThrow();
        expect(mail.status).toBe('done');
      }, { timeout: 10_000, interval: 20 });
      expect(runningPrograms()).toContain(pgid);

      // Deleting the item kills its encode; nothing of it is kept.
      expect((await t.del(`/user/media/GuideVideoObject/${item.id}`, { token: user.token })).statusCode).toBe(204);
      await expectGroupGone(pgid);
      await vi.waitFor(async () => expect((await videoJob(t, item.id)).status).toBe('done'), { timeout: 10_000, interval: 20 });
      expect(await t.db.selectFrom('video_encodings').select('encodingid').where('videoid', '=', item.id).execute()).toEqual([]);

      // Shutdown with an encode running: the program dies with its group; the job waits for the next start.
      const second = (await upload(t, user, gappedMp4(100_000), 'again.mp4')).json();
      const pgid2 = await vi.waitFor(() => {
        const p = runningPrograms().filter((x) => x !== pgid);
        expect(p.length).toBe(1);
        expect(readFileSync(`/proc/${p[0]}/cmdline`, 'utf8')).toMatch(/(^|\/)ffmpeg\0/);
        return p[0]!;
      }, { timeout: 10_000, interval: 20 });
      await t.app.close();
      closed = true;
      await expectGroupGone(pgid2);
      expect(runningPrograms()).toEqual([]);
      expect(await videoJob(t, second.id)).toMatchObject({ status: 'pending', attempts: 0 });
      expect(await videoRow(t, second.id)).toMatchObject({ state: 'queued' });
    } finally {
      if (closed) await t.close().catch(() => {});
      else await t.close();
    }
  });
});
