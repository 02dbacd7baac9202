// A real S3-protocol server for the tests (s3rver, a devDependency) on loopback: started
// on a free port with a temporary folder when a test file first needs it, closed when the
// file's last app closes. Each app gets a bucket of its own.
//
// TEST_MEDIA_STORAGE=s3 makes buildTestApp store every file in such a bucket
// (`npm run test:s3` runs the storage suites so, in CI on both databases).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import S3rver from 's3rver';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import type { StorageConfig } from '../../src/config.js';
import { s3ClientFor } from '../../src/storage/s3-store.js';

export type S3Storage = Extract<StorageConfig, { kind: 's3' }>;

/** Whether this run stores the apps' files in the test bucket. */
export const testStorageIsS3 = () => process.env.TEST_MEDIA_STORAGE === 's3';

let server: { endpoint: string; close(): Promise<void> } | null = null;
let starting: Promise<{ endpoint: string; close(): Promise<void> }> | null = null;
let users = 0;

async function start() {
  const dir = mkdtempSync(join(tmpdir(), 'cp-s3-'));
  const s3 = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir });
  const { port } = await s3.run();
  // The SDK's default credential chain reads these; s3rver accepts this pair.
  process.env.AWS_ACCESS_KEY_ID = 'S3RVER';
  process.env.AWS_SECRET_ACCESS_KEY = 'S3RVER';
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async close() {
      await s3.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A fresh bucket on the file's server; `release()` when the app that uses it is closed. */
export async function testBucket(prefix = ''): Promise<{ storage: S3Storage; release(): Promise<void> }> {
  users += 1;
  if (!server) {
    starting ??= start();
    try {
      server = await starting;
    } finally {
      starting = null;
    }
  }
  const storage: S3Storage = { kind: 's3', bucket: `test-${randomBytes(6).toString('hex')}`, endpoint: server.endpoint, region: 'us-east-1', forcePathStyle: true, prefix };
  await s3ClientFor(storage).send(new CreateBucketCommand({ Bucket: storage.bucket }));
  let released = false;
  return {
    storage,
    async release() {
      if (released) return;
      released = true;
      s3ClientFor(storage).destroy();
      users -= 1;
      if (users === 0 && server) {
        const s = server;
        server = null;
        await s.close();
      }
    },
  };
}
