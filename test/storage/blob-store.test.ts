// Both storage backends through the BlobStore interface: the filesystem and a real
// S3-protocol server (s3rver on loopback). A streamed upload of several parts is read back
// byte for byte: with the SDK's default checksums it would be sent aws-chunked, and the
// test server would store the framing as the file.
import { mkdtempSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { FileBlobStore, makeStore, type BlobStore } from '../../src/storage/blob-store.js';
import { S3BlobStore } from '../../src/storage/s3-store.js';
import { loadConfig, ConfigError } from '../../src/config.js';
import { testBucket } from '../helpers/s3.js';

async function bytesOf(stream: Readable | null): Promise<Buffer> {
  if (!stream) throw new Error('no blob');
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** 20 MiB that differ everywhere (three parts of 8 MiB), sent in 64 KiB chunks as a request body would be. */
const BIG = Buffer.alloc(20 * 1024 * 1024 + 12345);
for (let i = 0; i + 4 <= BIG.length; i += 4) BIG.writeUInt32LE((i * 2654435761) >>> 0, i);
function* chunks(data: Buffer) {
  for (let i = 0; i < data.length; i += 65536) yield data.subarray(i, i + 65536);
}

let bucket: Awaited<ReturnType<typeof testBucket>>;
const stores: Record<string, BlobStore> = {};

beforeAll(async () => {
  bucket = await testBucket('site-a');
  const dataDir = mkdtempSync(join(tmpdir(), 'cp-blob-'));
  stores.fs = new FileBlobStore(join(dataDir, 'media'));
  stores.s3 = makeStore({ dataDir, storage: bucket.storage }, 'media');
}, 60_000);
afterAll(async () => {
  await bucket?.release();
});

describe.each(['fs', 's3'])('the %s store', (kind) => {
  it('reads back a streamed multipart upload byte for byte, whole and in ranges', async () => {
    const store = stores[kind];
    const written = await store.put('originals/big', Readable.from(chunks(BIG)));
    expect(written).toBe(BIG.length);
    expect(await store.size('originals/big')).toBe(BIG.length);
    const back = await bytesOf(await store.get('originals/big'));
    expect(back.length).toBe(BIG.length);
    expect(back.equals(BIG)).toBe(true);
    const range = await bytesOf(await store.get('originals/big', { start: 8 * 1024 * 1024 - 10, end: 8 * 1024 * 1024 + 9 }));
    expect(range.equals(BIG.subarray(8 * 1024 * 1024 - 10, 8 * 1024 * 1024 + 10))).toBe(true);
    const local = await store.localFile('originals/big');
    expect((await readFile(local!.path)).equals(BIG)).toBe(true);
    await local!.release();
  }, 120_000);

  it('answers null for a missing key, lists and deletes by prefix', async () => {
    const store = stores[kind];
    expect(await store.get('originals/none')).toBeNull();
    expect(await store.size('originals/none')).toBeNull();
    expect(await store.localFile('originals/none')).toBeNull();
    await store.putBuffer('variants/g1/large', Buffer.from('large'));
    await store.putBuffer('variants/g1/thumbnail', Buffer.from('thumb'));
    await store.putBuffer('variants/g10/large', Buffer.from('other'));
    await store.putBuffer('12/shared/a file (1).html', Buffer.from('<p>x</p>'));
    const listed = [];
    for await (const o of store.list('variants/g1')) listed.push(o);
    expect(listed.sort((a, b) => a.key.localeCompare(b.key)).map(({ key, size }) => ({ key, size }))).toEqual([{ key: 'variants/g1/large', size: 5 }, { key: 'variants/g1/thumbnail', size: 5 }]);
    // When each was last written, in UNIX seconds (the orphan sweep's age of a blob).
    const now = Date.now() / 1000;
    for (const o of listed) expect(Math.abs(o.modified - now)).toBeLessThan(600);
    await store.deletePrefix('variants/g1');
    expect(await store.size('variants/g1/large')).toBeNull();
    expect(await store.size('variants/g10/large')).toBe(5);
    expect((await bytesOf(await store.get('12/shared/a file (1).html'))).toString()).toBe('<p>x</p>');
    await store.delete('variants/g10/large');
    await store.delete('variants/g10/large');
    expect(await store.size('variants/g10/large')).toBeNull();
    await expect(store.putBuffer('../escape', Buffer.from('x'))).rejects.toThrow(/invalid blob key/);
  });
});

it('sends a streamed body as it is (no aws-chunked framing for the server to keep)', async () => {
  // lib-storage buffers each part, so this is the client's own setting at work: a stream
  // of known length put in one request, read back byte for byte.
  const store = stores.s3 as S3BlobStore;
  const data = BIG.subarray(0, 300_000);
  await store.client.send(new PutObjectCommand({ Bucket: store.bucket, Key: `${store.prefix}originals/streamed`, Body: Readable.from(chunks(data)), ContentLength: data.length }));
  const back = await bytesOf(await store.get('originals/streamed'));
  expect(back.length).toBe(data.length);
  expect(back.equals(data)).toBe(true);
});

it('keeps the s3 store under its prefix and namespace', async () => {
  const other = makeStore({ dataDir: tmpdir(), storage: { ...bucket.storage, prefix: 'site-b/' } }, 'media');
  await stores.s3.putBuffer('originals/mine', Buffer.from('a'));
  expect(await other.size('originals/mine')).toBeNull();
});

it('refuses MEDIA_STORAGE=s3 without S3_BUCKET, naming it', () => {
  expect(() => loadConfig({ MEDIA_STORAGE: 's3' })).toThrow(ConfigError);
  expect(() => loadConfig({ MEDIA_STORAGE: 's3' })).toThrow(/S3_BUCKET/);
  expect(() => loadConfig({ MEDIA_STORAGE: 'nfs' })).toThrow(/MEDIA_STORAGE/);
  expect(() => loadConfig({ MEDIA_URL_MODE: 'redirect' })).toThrow(/MEDIA_STORAGE=s3/);
  // With s3 the node keys are required too (every node shares them: node-keys.test.ts).
  const keys = { MEDIA_URL_SECRET: 'm'.repeat(32), WEBHOOK_SECRETS_KEY: 'w'.repeat(32), AUDIT_CHAIN_KEY: 'a'.repeat(32) };
  expect(() => loadConfig({ MEDIA_STORAGE: 's3', ...keys })).toThrow(/^S3_BUCKET must be set with MEDIA_STORAGE=s3 \(the bucket that holds the stored files\)/);
  const c = loadConfig({ ...keys, MEDIA_STORAGE: 's3', S3_BUCKET: 'b1', S3_PREFIX: '/site/', S3_FORCE_PATH_STYLE: 'true', S3_ENDPOINT: 'http://127.0.0.1:9000/' });
  expect(c.storage).toEqual({ kind: 's3', bucket: 'b1', prefix: 'site/', forcePathStyle: true, endpoint: 'http://127.0.0.1:9000', region: 'us-east-1' });
  expect(loadConfig({}).storage).toEqual({ kind: 'fs' });
  expect(loadConfig({}).mediaDeleteGraceS).toBe(604800);
});
