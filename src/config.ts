// Every setting of the server, read from the environment once, typed, with defaults.
// The README's configuration table lists the same names; keep the two in step.
import { randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { trimEndChar } from './strings.js';
import { parseAllowEntry } from './net/outgoing.js';
import { checkSettings, ConfigError, FALSE_WORDS, TRUE_WORDS } from './config.rules.js';

export { ConfigError } from './config.rules.js';

export interface Config {
  port: number;
  /** Server processes sharing the port (WEB_CONCURRENCY); 1: this process serves alone. */
  webConcurrency: number;
  host: string;
  dataDir: string;
  /** `sqlite:<path>`, a plain file path, `:memory:`, or `postgres://...` */
  databaseUrl: string;
  /** PostgreSQL: queries as named (server-side prepared) statements; off behind a pooler that cannot keep them (PgBouncer in transaction mode). */
  pgPreparedStatements: boolean;
  /** PostgreSQL: longest a request waits for a connection of the pool, in ms; then 503. 0: no limit. */
  dbAcquireTimeoutMs: number;
  /** PostgreSQL: longest one statement of a request runs before the server cancels it, in ms; then 503. 0: no limit. Work outside requests has none. */
  dbStatementTimeoutMs: number;
  /** Longest /readyz waits for a connection and its check, in ms; then 503 "database busy". */
  readyzTimeoutMs: number;
  /** /readyz answers 503 when the data directory (or the SQLite file's) has less free space than this, in MB; 0: not checked. */
  diskMinFreeMb: number;
  /** App ids accepted in `X-App-Id` on register and login; empty: none required (public registration needs some). */
  appIds: string[];
  publicRegistration: boolean;
  /** A private site: nothing is readable without a login (docs/security.md, "Private sites"). */
  privateSite: boolean;
  /** Lifetime of an auth token, in seconds. */
  tokenTtl: number;
  /** Allowed CORS origins; `*` (the default) allows any. */
  corsOrigins: string[] | '*';
  /** Which peers' X-Forwarded-For is believed (TRUST_PROXY): false (none), a hop count, or addresses and ranges. */
  trustProxy: false | number | string[];
  logLevel: string;
  seedDemo: boolean;
  /** Base of every absolute URL in records, without a trailing slash. */
  publicUrl: string;
  /** Site languages; the first is the default. */
  languages: string[];
  /** Login, register and reset attempts per minute per client address (logins and trainers' passwords share one count: http/login-attempts.ts). */
  loginRateLimit: number;
  /** Failed passwords in a row on one account before its attempts are delayed; 0: never. */
  loginAccountFailures: number;
  /** The first delay of an account's attempts past those failures, in ms; doubles with each further failure. 0: none. */
  loginAccountDelayMs: number;
  /** The longest such delay, in ms (a delay, never a lockout). */
  loginAccountDelayMaxMs: number;
  /** Start the PDF renderer's worker thread with the server (else with the first PDF). */
  pdfWarmStart: boolean;
  /** PDFs waiting for the renderer; beyond, 503. */
  pdfQueueSize: number;
  /** Longest one PDF may render, in ms; then the worker is restarted and the request answers 503. */
  pdfTimeoutMs: number;
  /** Memory for rendered PDFs kept per entry, in MB; 0: none kept. */
  pdfKeptMb: number;
  /** Memory for cached guide records (and a fraction of it for list pages), in MB; 0 turns the cache off. */
  guideCacheMb: number;
  /** Longest a cached guide record or list page is used, in seconds. */
  guideCacheTtl: number;
  adminEmail: string;
  /** Empty: generated and printed at the first start. */
  adminPassword: string;
  /** scrypt cost as log2(N); lower only in tests. */
  passwordHashCost: number;
  /** `log` (default) writes outgoing mail to the log; `smtp://...` sends it. */
  mailTransport: string;
  mailFrom: string;
  /** Largest JSON body accepted, in bytes. */
  bodyLimit: number;
  /** Longest a request (headers and body) may take to arrive, in ms; 0: no limit. */
  requestTimeoutMs: number;
  /** Longest the request headers may take to arrive, in ms (never more than requestTimeoutMs). */
  headersTimeoutMs: number;
  /** How often the server looks for requests past those timeouts, in ms. */
  timeoutCheckIntervalMs: number;
  /** How often the job worker polls for due work, in milliseconds; 0 disables the worker. */
  jobPollMs: number;
  /** Whether this node claims jobs (JOB_WORKERS); false: it still enqueues them, other nodes run them. */
  jobWorkers: boolean;
  /** How long a claimed job may run before another worker (or this one, after a restart) takes it over, in seconds. */
  jobLeaseSeconds: number;
  /** Jobs run at once per lane in one process: media work (video encodes), mail, everything else (purges). */
  jobConcurrency: { media: number; mail: number; other: number };
  /** Guide types the site accepts. */
  guideTypes: string[];
  /** Largest media upload of any kind (the body limit of POST /user/media/uploads), in bytes. */
  mediaMaxBytes: number;
  /** Largest image upload, in bytes (never more than mediaMaxBytes). */
  mediaMaxImageBytes: number;
  /** Largest document (PDF) upload, in bytes (never more than mediaMaxBytes). */
  mediaMaxDocumentBytes: number;
  /** Image tasks (upload checks, size variants, edits) run at once, per process. */
  imageConcurrency: number;
  /** Image tasks that may wait for a turn; beyond: 429 busy. */
  imageQueueSize: number;
  /** Largest image decoded (width x height). */
  imageMaxPixels: number;
  /** Largest image an edit may produce (width x height). */
  imageMaxEditPixels: number;
  /** Bearer token that may read /metrics; empty: loopback callers only. */
  metricsToken: string;
  /** The key of signed media URLs (HMAC); `base64url:<bytes>` gives those bytes (server-keys.ts); empty: a random key kept in DATA_DIR/media-url.key. */
  mediaUrlSecret: string;
  /** The media URL key before the last change: URLs it signed still verify, for one URL lifetime (media.urls.ts); empty: none. */
  mediaUrlSecretPrevious: string;
  /** How long a signed media URL works at least, in seconds (at most twice as long). */
  mediaUrlTtl: number;
  /** Where stored files live: `fs` (DATA_DIR) or `s3`; with `s3` the node keys must be set (config.rules.ts REQUIRED_WITH). */
  mediaStorage: 'fs' | 's3';
  /** On SIGTERM, how long the server keeps serving with /readyz 503 before it closes, in ms (http/drain.ts). */
  shutdownDrainMs: number;
  /** Bytes a user's media (originals, variants, encodings) may take; 0: no limit. */
  mediaQuotaBytes: number;
  /** The same for Admins; 0: no limit. */
  mediaAdminQuotaBytes: number;
  /** Uploads (and image edits) a user may make per hour; 0: no limit. Admins: no limit. */
  mediaUploadsPerHour: number;
  /** Where stored files live (src/storage): `fs` under DATA_DIR, or an S3-compatible bucket. */
  storage: StorageConfig;
  /** How media URLs are answered: `app` streams from storage; `redirect` answers 302 to a presigned URL (s3 only). */
  mediaUrlMode: 'app' | 'redirect';
  /** Seconds a deleted item's stored files are kept before the job queue deletes them (a backup taken meanwhile stays whole). */
  mediaDeleteGraceS: number;
  /** Seconds a stored file no row references is kept before the orphan sweep deletes it (storage/orphans.ts). */
  mediaOrphanGraceS: number;
  /** The ffmpeg and ffprobe programs used for video metadata, encodings and posters. */
  ffmpegPath: string;
  ffprobePath: string;
  /** Longest a video may last, in seconds; longer ones are refused before any encode. */
  videoMaxSeconds: number;
  /** Largest width or height of a video, in pixels. */
  videoMaxDimension: number;
  /** Most streams (video, audio, subtitles...) in a video file. */
  videoMaxStreams: number;
  /** Wall-clock limit of one ffprobe run, in milliseconds. */
  videoProbeTimeoutMs: number;
  /** Wall-clock limit of one ffmpeg run (an encoding, the poster), in milliseconds. */
  videoEncodeTimeoutMs: number;
  /** Most bytes an ffprobe answer may have (more: the file is refused). */
  videoProbeMaxOutputBytes: number;
  /** Largest encoding ffmpeg may write, in bytes (ffmpeg's -fs); a bigger one fails the video. */
  videoEncodeMaxBytes: number;
  /** A LibreTranslate server for machine translation of display titles; empty: none (texts stay as they are). */
  libreTranslateUrl: string;
  libreTranslateApiKey: string;
  /** Addresses and CIDR ranges outgoing requests may reach although they are not global (private, loopback...); empty: none. */
  outgoingAllow: string[];
  /** External training modules: largest package (zip) upload or download, in bytes. */
  moduleMaxBytes: number;
  /** Most bytes a package may unpack to (declared and inflated). */
  moduleMaxUnpackedBytes: number;
  /** Most files (entries) in a package. */
  moduleMaxFiles: number;
  /** Largest compression ratio (unpacked / packed) of any entry over 1 MiB and of the whole package. */
  moduleMaxRatio: number;
  /** The site's name, sent in webhook bodies (`siteName`). */
  siteName: string;
  /** The key sealing webhook signing keys in the database (AES-256-GCM); `base64url:<bytes>` gives those bytes (server-keys.ts); empty: a random key kept in DATA_DIR/webhook-secrets.key. */
  webhookSecretsKey: string;
  /** The key of the audit log's hash chain (HMAC-SHA256); `base64url:<bytes>` gives those bytes (server-keys.ts); empty: a random key kept in DATA_DIR/audit-chain.key (docs/audit.md). */
  auditChainKey: string;
  /** Wall-clock limit of one webhook delivery, in milliseconds. */
  webhookTimeoutMs: number;
  /** Consecutive failed deliveries after which a subscription is disabled. */
  webhookMaxFailures: number;
  /** Whether Approvals.* webhook events are sent for an approval process whose `webhooks_enabled` is null (the service default). */
  webhooksApprovalsDefault: boolean;
  /** Lifetime of the single-use signing tokens mailed to the signers of an approval stage, in seconds. */
  approvalTokenTtl: number;
}

const DEFAULT_GUIDE_TYPES = [
  'replacement', 'installation', 'repair', 'disassembly', 'teardown', 'technique', 'maintenance',
  'how-to', 'troubleshooting', 'project',
];

function list(value: string | undefined): string[] {
  return (value ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

/** A switch: a value that is neither a yes nor a no stops the start, as a bad number does (a typo must not turn a feature off). */
function bool(name: string, value: string | undefined, fallback: boolean): boolean {
  if (value === undefined || value === '') return fallback;
  const word = value.trim().toLowerCase();
  if (TRUE_WORDS.includes(word)) return true;
  if (FALSE_WORDS.includes(word)) return false;
  throw new ConfigError(`${name} must be one of ${[...TRUE_WORDS, ...FALSE_WORDS].join(', ')}, got "${value}"`);
}

function int(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new ConfigError(`${name} must be a non-negative integer, got "${value}"`);
  return n;
}

/** An OUTGOING_ALLOW entry that parses, or a ConfigError naming it. */
function allowEntry(entry: string) {
  try {
    return parseAllowEntry(entry);
  } catch (err) {
    throw new ConfigError(`OUTGOING_ALLOW must be a comma list of addresses, CIDR ranges or host names, got "${entry}": ${(err as Error).message}`);
  }
}

/** Node refuses a headers timeout longer than the request timeout; 0 (no limit) is not checked by the server. */
function requestTimeouts(env: NodeJS.ProcessEnv) {
  const requestTimeoutMs = int('REQUEST_TIMEOUT_MS', env.REQUEST_TIMEOUT_MS, 120_000);
  const headers = Math.max(1, int('HEADERS_TIMEOUT_MS', env.HEADERS_TIMEOUT_MS, 20_000));
  return {
    requestTimeoutMs,
    headersTimeoutMs: requestTimeoutMs > 0 ? Math.min(headers, requestTimeoutMs) : headers,
    timeoutCheckIntervalMs: Math.max(1, int('TIMEOUT_CHECK_INTERVAL_MS', env.TIMEOUT_CHECK_INTERVAL_MS, 5_000)),
  };
}

/** The storage backend's settings; `s3` needs S3_BUCKET. */
export type StorageConfig =
  | { kind: 'fs' }
  | { kind: 's3'; bucket: string; endpoint: string; region: string; forcePathStyle: boolean; prefix: string };

export function storageConfig(env: NodeJS.ProcessEnv): StorageConfig {
  if ((env.MEDIA_STORAGE || 'fs') !== 's3') return { kind: 'fs' };
  const bucket = (env.S3_BUCKET || '').trim();
  if (!bucket) throw new ConfigError('MEDIA_STORAGE=s3 needs S3_BUCKET: the bucket that holds the stored files.');
  // A prefix names a folder of the bucket: no leading slash, one trailing slash.
  const prefix = (env.S3_PREFIX || '').trim().split('/').filter(Boolean).join('/');
  return {
    kind: 's3', bucket, endpoint: trimEndChar((env.S3_ENDPOINT || '').trim(), '/'), region: (env.S3_REGION || '').trim() || 'us-east-1',
    forcePathStyle: bool('S3_FORCE_PATH_STYLE', env.S3_FORCE_PATH_STYLE, false), prefix: prefix ? `${prefix}/` : '',
  };
}

/** The data directory DATA_DIR names (absolute), read without the other settings. */
export const dataDirOf = (env: NodeJS.ProcessEnv): string => resolve(env.DATA_DIR || './data');

/** TRUST_PROXY as Fastify takes it (checked by config.rules.ts): unset, none; digits, hops; else a list. */
function trustProxySetting(value: string | undefined): Config['trustProxy'] {
  const v = (value ?? '').trim();
  if (!v) return false;
  return /^[0-9]+$/.test(v) ? Number(v) : list(v);
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  checkSettings(env);
  const port = int('PORT', env.PORT, 3000);
  const dataDir = dataDirOf(env);
  const cors = list(env.CORS_ORIGINS);
  const languages = list(env.LANGUAGES);
  const publicRegistration = bool('PUBLIC_REGISTRATION', env.PUBLIC_REGISTRATION, false);
  const appIds = list(env.APP_IDS);
  // The specification: with public registration, register and login must carry an app id.
  if (publicRegistration && appIds.length === 0) throw new ConfigError('PUBLIC_REGISTRATION=true needs APP_IDS: the app ids that register and login requests must send in X-App-Id (comma list).');
  const guideCacheTtl = int('GUIDE_CACHE_TTL', env.GUIDE_CACHE_TTL, 300);
  const storage = storageConfig(env);
  const mediaUrlMode = env.MEDIA_URL_MODE === 'redirect' ? 'redirect' : 'app';
  if (mediaUrlMode === 'redirect' && storage.kind !== 's3') throw new ConfigError('MEDIA_URL_MODE=redirect needs MEDIA_STORAGE=s3: presigned URLs point into the bucket.');
  return {
    port,
    webConcurrency: Math.max(1, int('WEB_CONCURRENCY', env.WEB_CONCURRENCY, 1)),
    host: env.HOST || '0.0.0.0',
    dataDir,
    databaseUrl: env.DATABASE_URL || `sqlite:${resolve(dataDir, 'content-platform.sqlite')}`,
    pgPreparedStatements: bool('PG_PREPARED_STATEMENTS', env.PG_PREPARED_STATEMENTS, true),
    dbAcquireTimeoutMs: int('DB_ACQUIRE_TIMEOUT_MS', env.DB_ACQUIRE_TIMEOUT_MS, 5_000),
    dbStatementTimeoutMs: int('DB_STATEMENT_TIMEOUT_MS', env.DB_STATEMENT_TIMEOUT_MS, 30_000),
    readyzTimeoutMs: Math.max(1, int('READYZ_TIMEOUT_MS', env.READYZ_TIMEOUT_MS, 1_000)),
    diskMinFreeMb: int('DISK_MIN_FREE_MB', env.DISK_MIN_FREE_MB, 512),
    appIds,
    publicRegistration,
    privateSite: bool('PRIVATE_SITE', env.PRIVATE_SITE, false),
    tokenTtl: int('TOKEN_TTL', env.TOKEN_TTL, 30 * 24 * 3600),
    corsOrigins: cors.length === 0 || cors.includes('*') ? '*' : cors,
    trustProxy: trustProxySetting(env.TRUST_PROXY),
    logLevel: env.LOG_LEVEL || 'info',
    seedDemo: bool('SEED_DEMO', env.SEED_DEMO, true),
    publicUrl: trimEndChar(env.PUBLIC_URL || `http://localhost:${port}`, '/'),
    languages: languages.length ? languages : ['en'],
    loginRateLimit: int('LOGIN_RATE_LIMIT', env.LOGIN_RATE_LIMIT, 10),
    loginAccountFailures: int('LOGIN_ACCOUNT_FAILURES', env.LOGIN_ACCOUNT_FAILURES, 5),
    loginAccountDelayMs: int('LOGIN_ACCOUNT_DELAY_MS', env.LOGIN_ACCOUNT_DELAY_MS, 1_000),
    loginAccountDelayMaxMs: int('LOGIN_ACCOUNT_DELAY_MAX_MS', env.LOGIN_ACCOUNT_DELAY_MAX_MS, 30_000),
    pdfWarmStart: bool('PDF_WARM_START', env.PDF_WARM_START, true),
    pdfQueueSize: Math.max(1, int('PDF_QUEUE_SIZE', env.PDF_QUEUE_SIZE, 8)),
    pdfTimeoutMs: Math.max(1, int('PDF_TIMEOUT_MS', env.PDF_TIMEOUT_MS, 10_000)),
    pdfKeptMb: int('PDF_KEPT_MB', env.PDF_KEPT_MB, 32),
    guideCacheMb: int('GUIDE_CACHE_MB', env.GUIDE_CACHE_MB, 80),
    guideCacheTtl,
    adminEmail: env.ADMIN_EMAIL || 'admin@example.com',
    adminPassword: env.ADMIN_PASSWORD || '',
    passwordHashCost: int('PASSWORD_HASH_COST', env.PASSWORD_HASH_COST, 15),
    mailTransport: env.MAIL_TRANSPORT || 'log',
    mailFrom: env.MAIL_FROM || 'Content Platform <no-reply@localhost>',
    bodyLimit: int('BODY_LIMIT', env.BODY_LIMIT, 1024 * 1024),
    ...requestTimeouts(env),
    jobPollMs: int('JOB_POLL_MS', env.JOB_POLL_MS, 500),
    jobWorkers: bool('JOB_WORKERS', env.JOB_WORKERS, true),
    jobLeaseSeconds: Math.max(1, int('JOB_LEASE_SECONDS', env.JOB_LEASE_SECONDS, 300)),
    jobConcurrency: {
      media: Math.max(1, int('JOB_MEDIA_CONCURRENCY', env.JOB_MEDIA_CONCURRENCY, 1)),
      mail: Math.max(1, int('JOB_MAIL_CONCURRENCY', env.JOB_MAIL_CONCURRENCY, 2)),
      other: Math.max(1, int('JOB_OTHER_CONCURRENCY', env.JOB_OTHER_CONCURRENCY, 1)),
    },
    guideTypes: list(env.GUIDE_TYPES).length ? list(env.GUIDE_TYPES) : DEFAULT_GUIDE_TYPES,
    mediaMaxBytes: int('MEDIA_MAX_BYTES', env.MEDIA_MAX_BYTES, 200 * 1024 * 1024),
    mediaMaxImageBytes: int('MEDIA_MAX_IMAGE_BYTES', env.MEDIA_MAX_IMAGE_BYTES, 30 * 1024 * 1024),
    mediaMaxDocumentBytes: int('MEDIA_MAX_DOCUMENT_BYTES', env.MEDIA_MAX_DOCUMENT_BYTES, 50 * 1024 * 1024),
    imageConcurrency: Math.max(1, int('IMAGE_CONCURRENCY', env.IMAGE_CONCURRENCY, 2)),
    imageQueueSize: int('IMAGE_QUEUE_SIZE', env.IMAGE_QUEUE_SIZE, 16),
    imageMaxPixels: Math.max(1, int('IMAGE_MAX_PIXELS', env.IMAGE_MAX_PIXELS, 120_000_000)),
    imageMaxEditPixels: Math.max(1, int('IMAGE_MAX_EDIT_PIXELS', env.IMAGE_MAX_EDIT_PIXELS, 40_000_000)),
    metricsToken: env.METRICS_TOKEN || '',
    mediaUrlSecret: env.MEDIA_URL_SECRET || '',
    mediaUrlSecretPrevious: env.MEDIA_URL_SECRET_PREVIOUS || '',
    mediaStorage: env.MEDIA_STORAGE?.trim() === 's3' ? 's3' : 'fs',
    shutdownDrainMs: int('SHUTDOWN_DRAIN_MS', env.SHUTDOWN_DRAIN_MS, 5_000),
    // A cached guide record holds signed URLs: they must outlive it.
    mediaUrlTtl: Math.max(1, guideCacheTtl, int('MEDIA_URL_TTL', env.MEDIA_URL_TTL, 3600)),
    mediaQuotaBytes: int('MEDIA_QUOTA_BYTES', env.MEDIA_QUOTA_BYTES, 1024 * 1024 * 1024),
    mediaAdminQuotaBytes: int('MEDIA_ADMIN_QUOTA_BYTES', env.MEDIA_ADMIN_QUOTA_BYTES, 0),
    mediaUploadsPerHour: int('MEDIA_UPLOADS_PER_HOUR', env.MEDIA_UPLOADS_PER_HOUR, 60),
    storage,
    mediaUrlMode,
    mediaDeleteGraceS: int('MEDIA_DELETE_GRACE_S', env.MEDIA_DELETE_GRACE_S, 7 * 24 * 3600),
    mediaOrphanGraceS: int('MEDIA_ORPHAN_GRACE_S', env.MEDIA_ORPHAN_GRACE_S, 24 * 3600),
    ffmpegPath: env.FFMPEG_PATH || 'ffmpeg',
    ffprobePath: env.FFPROBE_PATH || 'ffprobe',
    videoMaxSeconds: Math.max(1, int('VIDEO_MAX_SECONDS', env.VIDEO_MAX_SECONDS, 3600)),
    videoMaxDimension: Math.max(16, int('VIDEO_MAX_DIMENSION', env.VIDEO_MAX_DIMENSION, 4096)),
    videoMaxStreams: Math.max(1, int('VIDEO_MAX_STREAMS', env.VIDEO_MAX_STREAMS, 8)),
    videoProbeTimeoutMs: Math.max(1, int('VIDEO_PROBE_TIMEOUT_MS', env.VIDEO_PROBE_TIMEOUT_MS, 30_000)),
    videoEncodeTimeoutMs: Math.max(1, int('VIDEO_ENCODE_TIMEOUT_MS', env.VIDEO_ENCODE_TIMEOUT_MS, 2 * 3600_000)),
    videoProbeMaxOutputBytes: Math.max(1024, int('VIDEO_PROBE_MAX_OUTPUT_BYTES', env.VIDEO_PROBE_MAX_OUTPUT_BYTES, 1024 * 1024)),
    videoEncodeMaxBytes: Math.max(1024 * 1024, int('VIDEO_ENCODE_MAX_BYTES', env.VIDEO_ENCODE_MAX_BYTES, 2 * 1024 * 1024 * 1024)),
    libreTranslateUrl: trimEndChar(env.LIBRETRANSLATE_URL || '', '/'),
    libreTranslateApiKey: env.LIBRETRANSLATE_API_KEY || '',
    outgoingAllow: list(env.OUTGOING_ALLOW).map((entry) => (allowEntry(entry), entry)),
    moduleMaxBytes: Math.max(1024, int('MODULE_MAX_BYTES', env.MODULE_MAX_BYTES, 200 * 1024 * 1024)),
    moduleMaxUnpackedBytes: Math.max(1024, int('MODULE_MAX_UNPACKED_BYTES', env.MODULE_MAX_UNPACKED_BYTES, 1024 * 1024 * 1024)),
    moduleMaxFiles: Math.max(1, int('MODULE_MAX_FILES', env.MODULE_MAX_FILES, 10_000)),
    moduleMaxRatio: Math.max(1, int('MODULE_MAX_RATIO', env.MODULE_MAX_RATIO, 200)),
    siteName: env.SITE_NAME || 'Content Platform',
    webhookSecretsKey: env.WEBHOOK_SECRETS_KEY || '',
    auditChainKey: env.AUDIT_CHAIN_KEY || '',
    webhookTimeoutMs: Math.max(100, int('WEBHOOK_TIMEOUT_MS', env.WEBHOOK_TIMEOUT_MS, 10_000)),
    webhookMaxFailures: Math.max(1, int('WEBHOOK_MAX_FAILURES', env.WEBHOOK_MAX_FAILURES, 15)),
    webhooksApprovalsDefault: bool('WEBHOOKS_APPROVALS_DEFAULT', env.WEBHOOKS_APPROVALS_DEFAULT, true),
    approvalTokenTtl: Math.max(60, int('APPROVAL_TOKEN_TTL', env.APPROVAL_TOKEN_TTL, 7 * 24 * 3600)),
  };
}

/**
 * loadConfig for a command's start: a wrong setting prints its lines (no stack trace) and
 * ends the process with 78 (EX_CONFIG), before anything touches the database.
 */
export function loadConfigOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    for (const line of err.message.split('\n')) process.stderr.write(`configuration: ${line}\n`);
    process.exit(78);
  }
}

/** A password for the demo accounts when ADMIN_PASSWORD is not set. */
export function generatePassword(): string {
  return randomBytes(12).toString('base64url');
}
