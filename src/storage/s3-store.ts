// The S3-compatible backend of the BlobStore (MEDIA_STORAGE=s3): AWS S3 or any server that
// speaks its protocol (S3_ENDPOINT). Credentials come from the SDK's default chain
// (AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY, a profile, an instance role...).
// Streams are uploaded in parts (lib-storage's Upload: a few parts in memory at a time,
// never the whole file). Checksums are computed only where an operation requires them:
// with the SDK's default a streamed upload is sent in the aws-chunked framing, which some
// S3-compatible servers store as it came, corrupting the file.
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { StorageConfig } from '../config.js';
import { checkKey, type BlobRange, type BlobStore, type ListedBlob, type PresignOptions } from './blob.js';

type S3Settings = Extract<StorageConfig, { kind: 's3' }>;

const PART_SIZE = 8 * 1024 * 1024;
const clients = new WeakMap<S3Settings, S3Client>();

/**
 * The SDK's notice that its releases after January 2027 need Node 22 (printed once per
 * process on Node 20, when the first client is made): the @aws-sdk packages are pinned at
 * the last release that supports Node 20 (package.json), so it tells the operator nothing
 * to do. The SDK's documented switch (aws/aws-sdk-js-v3#7983) is this variable, read when a
 * client is made; it turns off that notice only, no other warning. An operator's own value
 * is kept.
 */
function quietNodeVersionNotice(): void {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
}

/** One client per configuration (it keeps the connections). */
export function s3ClientFor(s: S3Settings): S3Client {
  let client = clients.get(s);
  if (!client) {
    quietNodeVersionNotice();
    client = new S3Client({
      region: s.region,
      ...(s.endpoint ? { endpoint: s.endpoint } : {}),
      forcePathStyle: s.forcePathStyle,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    clients.set(s, client);
  }
  return client;
}

function isMissing(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === 'NoSuchKey' || e?.name === 'NotFound' || e?.$metadata?.httpStatusCode === 404;
}

export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  readonly client: S3Client;
  readonly bucket: string;

  /** `prefix`: the namespace's key prefix (ends with `/`); `tmp`: where downloads for `localFile` go. */
  constructor(settings: S3Settings, readonly prefix: string, private tmp: string) {
    this.client = s3ClientFor(settings);
    this.bucket = settings.bucket;
  }

  private k(key: string): string {
    checkKey(key);
    return this.prefix + key;
  }

  async put(key: string, source: Readable | AsyncIterable<Buffer>): Promise<number> {
    let bytes = 0;
    async function* counted() {
      for await (const chunk of source) {
        bytes += (chunk as Buffer).length;
        yield chunk as Buffer;
      }
    }
    const upload = new Upload({ client: this.client, params: { Bucket: this.bucket, Key: this.k(key), Body: Readable.from(counted()) }, partSize: PART_SIZE, queueSize: 2, leavePartsOnError: false });
    await upload.done();
    return bytes;
  }

  async putBuffer(key: string, data: Buffer): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: this.k(key), Body: data, ContentLength: data.length }));
  }

  async get(key: string, range?: BlobRange): Promise<Readable | null> {
    try {
      const res = await this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: this.k(key), ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}) }));
      return res.Body as Readable;
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async size(key: string): Promise<number | null> {
    try {
      const res = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.k(key) }));
      return res.ContentLength ?? 0;
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    try {
      await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.k(key) }));
    } catch (err) {
      if (!isMissing(err)) throw err;
    }
  }

  async deletePrefix(prefix: string): Promise<void> {
    checkKey(prefix);
    // One by one (DeleteObjects needs a Content-MD5 that not every server takes alike); a
    // prefix holds a handful of variants or one package's files.
    const keys: string[] = [];
    for await (const o of this.list(prefix)) keys.push(o.key);
    for (let i = 0; i < keys.length; i += 8) await Promise.all(keys.slice(i, i + 8).map((k) => this.delete(k)));
  }

  async *list(prefix?: string): AsyncIterable<ListedBlob> {
    const full = prefix ? `${this.k(prefix)}/` : this.prefix;
    let token: string | undefined;
    do {
      const res = await this.client.send(new ListObjectsV2Command({ Bucket: this.bucket, Prefix: full, ContinuationToken: token }));
      for (const o of res.Contents ?? []) {
        if (o.Key && o.Key.startsWith(this.prefix)) yield { key: o.Key.slice(this.prefix.length), size: Number(o.Size ?? 0), modified: o.LastModified ? Math.floor(o.LastModified.getTime() / 1000) : Number.MAX_SAFE_INTEGER };
      }
      token = res.IsTruncated ? res.NextContinuationToken : undefined;
    } while (token);
  }

  /**
   * 0: a killed upload leaves an unfinished multipart upload, which is no object (never
   * listed, never read) but is billed until aborted; the bucket's lifecycle rule
   * AbortIncompleteMultipartUpload does that (docs/deployment.md).
   */
  async removeUnfinished(): Promise<number> {
    return 0;
  }

  async localFile(key: string) {
    const body = await this.get(key);
    if (!body) return null;
    await mkdir(this.tmp, { recursive: true });
    const path = join(this.tmp, `${randomBytes(8).toString('hex')}-${key.split('/').pop()!.replace(/[^A-Za-z0-9._-]/g, '_').slice(-60)}`);
    try {
      await pipeline(body, createWriteStream(path));
    } catch (err) {
      await rm(path, { force: true });
      throw err;
    }
    return { path, release: () => rm(path, { force: true }) };
  }

  async presignedUrl(key: string, o: PresignOptions): Promise<string | null> {
    const command = new GetObjectCommand({
      Bucket: this.bucket, Key: this.k(key), ResponseContentType: o.contentType,
      ...(o.contentDisposition ? { ResponseContentDisposition: o.contentDisposition } : {}),
    });
    // SigV4 allows at most 7 days.
    return getSignedUrl(this.client, command, { expiresIn: Math.min(o.expiresIn, 7 * 86_400), signingDate: new Date(o.signedAt * 1000) });
  }
}
