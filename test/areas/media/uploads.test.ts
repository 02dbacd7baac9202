import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeUser, type TestUser } from '../../helpers/factories.js';
import { hasFfmpeg, minimalPdf, noteSkippedWithoutFfmpeg, solid, storedKeys, testVideo, upload } from '../../helpers/factories/media.js';

let user: TestUser;
const t = appForFile({ config: { mediaMaxBytes: 2_000_000, mediaMaxImageBytes: 1_000_000, mediaMaxDocumentBytes: 1_500_000 } }, async () => {
  user = await makeUser(t);
});

async function counts() {
  const n = async (table: 'images' | 'videos' | 'documents' | 'media_items') => Number((await t.db.selectFrom(table).select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  return { images: await n('images'), videos: await n('videos'), documents: await n('documents'), items: await n('media_items'), files: (await storedKeys(t)).length };
}

describe('POST /user/media/uploads', () => {
  for (const format of ['jpeg', 'png', 'gif', 'webp'] as const) {
    it(`stores a ${format.toUpperCase()} image and answers 200 with the item`, async () => {
      const data = await solid(64, 48, { r: 10, g: 20, b: 30 }, format);
      const res = await upload(t, user, data, `pic.${format}`);
      expect(res.statusCode).toBe(200);
      const item = res.json();
      expect(item).toMatchObject({ type: 'GuideImage', kind: 'image', filename: `pic.${format}`, mime: `image/${format}`, size: data.length, isReady: true, state: 'ready' });
      expect(item.image).toMatchObject({ width: 64, height: 48, ratio: 'FOUR_THREE', srcid: null, markup: null });
      expect(item.image.image.id).toBe(item.id);
      expect(item.guid).toMatch(/^[A-Za-z0-9]{16}$/);
      const row = await t.db.selectFrom('images').selectAll().where('imageid', '=', item.id).executeTakeFirstOrThrow();
      expect(row).toMatchObject({ userid: user.userid, width: 64, height: 48, mime: `image/${format}`, size: data.length, guid: item.guid });
      const lib = await t.db.selectFrom('media_items').selectAll().where('type', '=', 'GuideImage').where('objectid', '=', item.id).executeTakeFirstOrThrow();
      expect(lib.userid).toBe(user.userid);
    });
  }

  it('decides the kind from the bytes, not the name', async () => {
    const res = await upload(t, user, await solid(20, 20, { r: 0, g: 0, b: 0 }, 'png'), 'looks-like.pdf');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ type: 'GuideImage', mime: 'image/png' });
  });

  it('stores a PDF as a Document', async () => {
    const pdf = minimalPdf();
    const res = await upload(t, user, pdf, 'manual.pdf');
    expect(res.statusCode).toBe(200);
    const item = res.json();
    expect(item).toMatchObject({ type: 'Document', kind: 'document', mime: 'application/pdf', size: pdf.length, isReady: true });
    expect(item.document).toMatchObject({ documentid: item.id, filename: 'manual.pdf', mime: 'application/pdf', size: pdf.length });
    const file = await t.app.inject({ method: 'GET', url: item.document.url.replace(t.config.publicUrl, '') });
    expect(file.statusCode).toBe(200);
    expect(file.headers['content-type']).toBe('application/pdf');
    expect(file.rawPayload.equals(pdf)).toBe(true);
  });

  it.skipIf(!hasFfmpeg)('stores MP4, WebM and QuickTime videos, not ready until encoded, with a job queued', async () => {
    for (const [format, mime] of [['mp4', 'video/mp4'], ['webm', 'video/webm'], ['mov', 'video/quicktime']] as const) {
      const data = testVideo(format);
      const res = await upload(t, user, data, `clip.${format}`);
      expect(res.statusCode, format).toBe(200);
      const item = res.json();
      expect(item).toMatchObject({ type: 'GuideVideoObject', kind: 'video', mime, size: data.length, isReady: false, state: 'queued' });
      expect(item.video).toMatchObject({ videoid: item.id, filename: `clip.${format}`, encodings: [], image: null });
      expect(item.video.meta).toMatchObject({ state: 'queued', file_size_in_bytes: data.length, id: item.id });
      expect(item.video.meta.md5_checksum).toMatch(/^[0-9a-f]{32}$/);
      const job = await t.db.selectFrom('jobs').selectAll().where('type', '=', 'media.video.process').orderBy('jobid', 'desc').executeTakeFirstOrThrow();
      expect(JSON.parse(job.payload)).toEqual({ videoid: item.id });
    }
  });
  noteSkippedWithoutFfmpeg('video upload kinds');

  it('422 without Content-Type application/octet-stream, and stores nothing', async () => {
    const before = await counts();
    const data = await solid(20, 20, { r: 0, g: 0, b: 0 }, 'jpeg');
    for (const type of ['image/jpeg', 'application/json', 'multipart/form-data; boundary=x', null]) {
      const res = await upload(t, user, data, 'x.jpg', type);
      expect(res.statusCode, String(type)).toBe(422);
      expect(res.json().errors[0].field).toBe('Content-Type');
      expect(res.json().message).toMatch(/application\/octet-stream/);
    }
    expect(await counts()).toEqual(before);
  });

  it('422 for an empty body or an unknown kind, and stores nothing', async () => {
    const before = await counts();
    const empty = await upload(t, user, Buffer.alloc(0), 'empty.jpg');
    expect(empty.statusCode).toBe(422);
    expect(empty.json().message).toMatch(/empty/);
    for (const junk of [Buffer.from('hello, this is plain text'), Buffer.alloc(10_000, 7), Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'), Buffer.from('PK\u0003\u0004zipfile')]) {
      const res = await upload(t, user, junk, 'junk.jpg');
      expect(res.statusCode).toBe(422);
      expect(res.json().errors[0]).toMatchObject({ field: 'file', code: 'unsupported_type' });
      expect(res.json().message).toMatch(/JPEG, PNG, GIF or WebP/);
    }
    expect(await counts()).toEqual(before);
  });

  it('422 for a file that starts like an image but is not one, and stores nothing', async () => {
    const before = await counts();
    const fake = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(5000, 1)]);
    const res = await upload(t, user, fake, 'broken.jpg');
    expect(res.statusCode).toBe(422);
    expect(res.json().message).toMatch(/cannot be read/);
    expect(await counts()).toEqual(before);
  });

  it('413 over the limit (the upload limit, and the smaller image and document limits), storing nothing', async () => {
    const before = await counts();
    const big = Buffer.concat([minimalPdf(), Buffer.alloc(2_100_000, 32)]);
    const res = await upload(t, user, big, 'big.pdf');
    expect(res.statusCode).toBe(413);
    expect(res.json().code).toBe('payload_too_large');
    const doc = await upload(t, user, Buffer.concat([minimalPdf(), Buffer.alloc(1_600_000, 32)]), 'doc.pdf');
    expect(doc.statusCode).toBe(413);
    expect(doc.json().message).toMatch(/1500000/);
    // an image past the image limit but under the upload limit
    const png = await sharpNoise(900, 900);
    expect(png.length).toBeGreaterThan(1_000_000);
    const img = await upload(t, user, png, 'big.png');
    expect(img.statusCode).toBe(413);
    expect(await counts()).toEqual(before);
  });

  it('422 for an image wider than 16000 pixels, and stores nothing', async () => {
    const before = await counts();
    const { default: sharp } = await import('sharp');
    const wide = await sharp({ create: { width: 16001, height: 2, channels: 3, background: { r: 0, g: 0, b: 0 } } }).png().toBuffer();
    const res = await upload(t, user, wide, 'wide.png');
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0]).toMatchObject({ field: 'file', code: 'out_of_range' });
    expect(res.json().message).toMatch(/16001x2/);
    expect(await counts()).toEqual(before);
  });

  it('over a real socket, a refusal mid-stream still reaches the client (not a reset)', async () => {
    const before = await counts();
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { request } = await import('node:http');
    const send = (first: Buffer, total: number) => new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${address}/api/2.0/user/media/uploads?file=big.pdf`, { method: 'POST', headers: { authorization: `api ${user.token}`, 'content-type': 'application/octet-stream', 'transfer-encoding': 'chunked' } }, (res) => {
        let body = '';
        res.setEncoding('utf8').on('data', (d) => { body += d; }).on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      });
      // Writing may fail (EPIPE) once the server has answered and closed; the answer counts.
      let failure: Error | null = null;
      req.on('error', (e) => { failure = e; });
      req.on('close', () => setImmediate(() => reject(failure ?? new Error('closed without an answer'))));
      req.write(first);
      let sent = first.length;
      const chunk = Buffer.alloc(64 * 1024, 32);
      const pump = () => {
        while (sent < total) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once('drain', pump);
        }
        req.end();
      };
      pump();
    });
    const tooBig = await send(minimalPdf(), 3_000_000);
    expect(tooBig.status).toBe(413);
    expect(JSON.parse(tooBig.body).code).toBe('payload_too_large');
    const unknown = await send(Buffer.from('just some text, not a file kind'), 500_000);
    expect(unknown.status).toBe(422);
    expect(await counts()).toEqual(before);
  });

  it('401 without a token', async () => {
    const res = await upload(t, null, await solid(10, 10, { r: 0, g: 0, b: 0 }), 'x.png');
    expect(res.statusCode).toBe(401);
  });

  it('422 without the file parameter', async () => {
    const res = await t.post('/user/media/uploads', { token: user.token, payload: await solid(10, 10, { r: 0, g: 0, b: 0 }), headers: { 'content-type': 'application/octet-stream' } });
    expect(res.statusCode).toBe(422);
    expect(res.json().errors[0]).toMatchObject({ field: 'file', code: 'missing_field' });
  });

  it('keeps only the base name of the file', async () => {
    const res = await upload(t, user, await solid(10, 10, { r: 0, g: 0, b: 0 }), '../../etc/passwd.png');
    expect(res.statusCode).toBe(200);
    expect(res.json().filename).toBe('passwd.png');
  });
});

async function sharpNoise(w: number, h: number) {
  const { default: sharp } = await import('sharp');
  const raw = Buffer.alloc(w * h * 3);
  let s = 1;
  for (let i = 0; i < raw.length; i++) {
    s = (s * 1103515245 + 12345) >>> 0;
    raw[i] = s >>> 24;
  }
  return sharp(raw, { raw: { width: w, height: h, channels: 3 } }).png({ compressionLevel: 0 }).toBuffer();
}
