import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { buildTestApp, appForFile } from '../../helpers/app.js';
import { makeUser, type TestUser } from '../../helpers/factories.js';
import { getFile, hasFfmpeg, longTestVideo, noteSkippedWithoutFfmpeg, testVideo, upload } from '../../helpers/factories/media.js';
import { loadVideoDetails } from '../../../src/areas/media/media-records.js';
import { loadMediaResolver } from '../../../src/areas/media/media-resolver.js';

const VIDEO_FIELDS = ['duration', 'encodings', 'filename', 'height', 'image', 'meta', 'srcid', 'videoid', 'width'];
const META_FIELDS = ['audio_bitrate_in_kbps', 'audio_codec', 'audio_sample_rate', 'channels', 'duration_in_ms', 'file_size_in_bytes', 'format', 'frame_rate', 'height', 'id', 'md5_checksum', 'progress', 'state', 'total_bitrate_in_kbps', 'video_bitrate_in_kbps', 'video_codec', 'width'];

let user: TestUser;
const t = appForFile({}, async () => {
  user = await makeUser(t);
});

noteSkippedWithoutFfmpeg('video encoding tests (test/areas/media/videos.test.ts)');

describe.skipIf(!hasFfmpeg)('video processing', () => {
  it('encodes MP4 (H.264) and WebM, makes a poster, and says finished', async () => {
    const data = testVideo('mp4', true);
    const item = (await upload(t, user, data, 'clip.mp4')).json();
    expect(item.isReady).toBe(false);
    expect(await t.app.jobs.runDue()).toBeGreaterThanOrEqual(1);

    const res = await t.get(`/media/videos/${item.id}`, { token: user.token });
    expect(res.statusCode).toBe(200);
    const v = res.json();
    expect(Object.keys(v).sort()).toEqual(VIDEO_FIELDS);
    expect(Object.keys(v.meta).sort()).toEqual(META_FIELDS);
    expect(v).toMatchObject({ videoid: item.id, filename: 'clip.mp4', width: 160, height: 120, srcid: null });
    expect(v.duration).toBeGreaterThanOrEqual(900);
    expect(v.duration).toBeLessThanOrEqual(1200);
    expect(v.meta).toMatchObject({ state: 'finished', progress: 100, id: item.id, video_codec: 'h264', audio_codec: 'aac', format: 'mpeg4', width: 160, height: 120, frame_rate: 10, file_size_in_bytes: data.length, channels: 1 });
    expect(v.meta.md5_checksum).toMatch(/^[0-9a-f]{32}$/);
    expect(v.encodings.map((e: { format: string }) => e.format)).toEqual(['mp4', 'webm']);
    const [mp4, webm] = v.encodings;
    expect(mp4).toMatchObject({ format: 'mp4', mime: 'video/mp4', width: 160, height: 120 });
    expect(mp4.codecs).toMatch(/^avc1\.64[0-9a-f]{4}, mp4a\.40\.2$/);
    expect(webm).toMatchObject({ format: 'webm', mime: 'video/webm', width: 160, height: 120, codecs: 'vp9, opus' });
    for (const e of v.encodings) {
      expect(Object.keys(e).sort()).toEqual(['codecs', 'format', 'height', 'mime', 'url', 'width']);
      const file = await getFile(t, e.url);
      expect(file.statusCode).toBe(200);
      expect(file.headers['content-type']).toBe(e.mime);
      expect(file.headers['accept-ranges']).toBe('bytes');
      expect(file.rawPayload.length).toBeGreaterThan(500);
    }
    // the poster: an image detail record whose variants serve JPEGs
    expect(v.image).toMatchObject({ width: 160, height: 120, ratio: 'FOUR_THREE' });
    const poster = await getFile(t, v.image.image.thumbnail);
    expect(poster.headers['content-type']).toBe('image/jpeg');
    expect((await sharp(poster.rawPayload).metadata()).width).toBe(96);

    const lib = (await t.get(`/user/media/GuideVideoObject/${item.id}`, { token: user.token })).json();
    expect(lib).toMatchObject({ isReady: true, state: 'finished' });
    const byGuid = await t.get(`/media/videos/${item.guid}`, { token: user.token });
    expect(byGuid.json()).toEqual(v);

    // [video|ID] in wiki syntax renders from the same records
    const resolver = await loadMediaResolver(t.db, t.config, { images: [], videos: [item.id] });
    expect(resolver.video(item.id)).toEqual({ src: mp4.url, poster: v.image.image.large });
  });

  it('a video in processing reports the percent encoded in meta.progress, from ffmpeg\'s progress stream', async () => {
    const data = longTestVideo(40);
    const item = (await upload(t, user, data, 'long.mp4')).json();
    expect((await t.get(`/media/videos/${item.id}`, { token: user.token })).json().meta).toMatchObject({ state: 'queued', progress: 0 });
    const run = t.app.jobs.runDue();
    const seen: number[] = [];
    // Polled while the job runs (bounded: the encode of 40 s of video takes seconds, the loop at most 120 s).
    for (let i = 0; i < 1200; i++) {
      const meta = (await t.get(`/media/videos/${item.id}`, { token: user.token })).json().meta;
      if (meta.state === 'finished') break;
      if (meta.state === 'processing') seen.push(meta.progress);
      await new Promise((r) => setTimeout(r, 100));
    }
    await run;
    const meta = (await t.get(`/media/videos/${item.id}`, { token: user.token })).json().meta;
    expect(meta).toMatchObject({ state: 'finished', progress: 100 });
    expect(seen.some((p) => p > 0 && p < 100), `progress seen: ${seen.join(', ')}`).toBe(true);
    expect(seen).toEqual([...seen].sort((a, b) => a - b)); // never goes back
  }, 180_000);

  it('serves byte ranges of an encoding (206) and refuses ranges past the end (416)', async () => {
    const item = (await upload(t, user, testVideo('webm'), 'clip.webm')).json();
    await t.app.jobs.runDue();
    const v = (await t.get(`/media/videos/${item.id}`, { token: user.token })).json();
    expect(v.meta).toMatchObject({ state: 'finished', format: 'webm', audio_codec: null, channels: null });
    const url = v.encodings[0].url;
    const whole = await getFile(t, url);
    const part = await getFile(t, url, { range: 'bytes=10-19' });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 10-19/${whole.rawPayload.length}`);
    expect(part.rawPayload.equals(whole.rawPayload.subarray(10, 20))).toBe(true);
    const tail = await getFile(t, url, { range: 'bytes=-5' });
    expect(tail.rawPayload.equals(whole.rawPayload.subarray(whole.rawPayload.length - 5))).toBe(true);
    expect((await getFile(t, url, { range: `bytes=${whole.rawPayload.length}-` })).statusCode).toBe(416);
    // The signature is the item's: it opens its original too; without it, a private item's file is not found.
    expect((await getFile(t, `${t.config.publicUrl}/files/videos/${item.guid}.original`)).statusCode).toBe(404);
    const original = await getFile(t, `${t.config.publicUrl}/files/videos/${item.guid}.original${new URL(url).search}`);
    expect(original.headers['content-type']).toBe('video/webm');
  });

  it('QuickTime is encoded too', async () => {
    const item = (await upload(t, user, testVideo('mov'), 'clip.mov')).json();
    await t.app.jobs.runDue();
    const v = (await t.get(`/media/videos/${item.id}`, { token: user.token })).json();
    expect(v.meta).toMatchObject({ state: 'finished', format: 'quicktime' });
    expect(v.encodings).toHaveLength(2);
  });

  it('a file that only looks like a video is a 422 and nothing is stored', async () => {
    const fake = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypisom'), Buffer.alloc(3000, 9)]);
    const videosBefore = await t.db.selectFrom('videos').select('videoid').execute();
    const res = await upload(t, user, fake, 'fake.mp4');
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0]).toMatchObject({ field: 'file', code: 'invalid_value' });
    expect(await t.db.selectFrom('videos').select('videoid').execute()).toEqual(videosBefore);
  });

  it('a video deleted before its job runs leaves nothing behind', async () => {
    const item = (await upload(t, user, testVideo('mp4'), 'gone.mp4')).json();
    expect((await t.del(`/user/media/GuideVideoObject/${item.id}`, { token: user.token })).statusCode).toBe(204);
    await t.app.jobs.runDue();
    expect((await t.get(`/media/videos/${item.id}`, { token: user.token })).statusCode).toBe(404);
    expect(await t.db.selectFrom('video_encodings').select('encodingid').where('videoid', '=', item.id).execute()).toEqual([]);
  });
});

describe('without ffmpeg', () => {
  it('an upload is stored and says it is not ready; the job retries, then marks it failed', async () => {
    const t2 = await buildTestApp({ config: { ffmpegPath: '/nonexistent/ffmpeg', ffprobePath: '/nonexistent/ffprobe' } });
    try {
      const u = await makeUser(t2);
      const mp4 = Buffer.concat([Buffer.from([0, 0, 0, 0x18]), Buffer.from('ftypmp42'), Buffer.alloc(100, 1)]);
      const item = (await upload(t2, u, mp4, 'x.mp4')).json();
      expect(item).toMatchObject({ type: 'GuideVideoObject', isReady: false, state: 'queued' });
      for (let i = 0; i < 5; i++) {
        await t2.app.jobs.runDue();
        t2.clock.advance(3600);
      }
      const lib = (await t2.get(`/user/media/GuideVideoObject/${item.id}`, { token: u.token })).json();
      expect(lib).toMatchObject({ isReady: false, state: 'failed' });
      const job = await t2.db.selectFrom('jobs').select(['status', 'attempts']).where('type', '=', 'media.video.process').executeTakeFirstOrThrow();
      expect(job).toMatchObject({ status: 'failed', attempts: 5 });
    } finally {
      await t2.close();
    }
  });

  it('loadVideoDetails answers a map; unknown ids are left out', async () => {
    expect((await loadVideoDetails(t.db, t.config, [999999, null])).size).toBe(0);
  });
});
