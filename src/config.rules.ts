// What every setting allows, declared once: `checkSettings` reads the environment against it
// before `loadConfig` maps it to the Config (config.ts), so that a wrong value stops the start
// before the database is touched, with one line per setting naming it, its value (secrets
// and URL passwords masked) and what is allowed. A setting config.ts reads must be declared
// here (test/config.test.ts fails otherwise).
import { importFormProblem, isImportForm } from './server-keys.js';
import { isIP } from 'node:net';

export type SettingRule =
  | { kind: 'int'; min?: number; max?: number }
  | { kind: 'bool' }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'httpUrl' }
  | { kind: 'databaseUrl' }
  | { kind: 'mailTransport' }
  | { kind: 'text'; secret?: boolean }
  /** A key: a secret text, or the import form `base64url:<bytes>` of a generated key (server-keys.ts). */
  | { kind: 'key' }
  | { kind: 'list' }
  | { kind: 'proxies' };

const int = (min = 0, max = Number.MAX_SAFE_INTEGER): SettingRule => ({ kind: 'int', min, max });
const bool: SettingRule = { kind: 'bool' };
const text: SettingRule = { kind: 'text' };
const secret: SettingRule = { kind: 'text', secret: true };
const key: SettingRule = { kind: 'key' };
const list: SettingRule = { kind: 'list' };

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export const TRUE_WORDS = ['1', 'true', 'yes', 'on'];
export const FALSE_WORDS = ['0', 'false', 'no', 'off'];

export const SETTINGS: Record<string, SettingRule> = {
  PORT: int(0, 65535),
  WEB_CONCURRENCY: int(1, 64),
  HOST: text,
  DATA_DIR: text,
  DATABASE_URL: { kind: 'databaseUrl' },
  PG_PREPARED_STATEMENTS: bool,
  DB_ACQUIRE_TIMEOUT_MS: int(),
  DB_STATEMENT_TIMEOUT_MS: int(),
  READYZ_TIMEOUT_MS: int(),
  DISK_MIN_FREE_MB: int(),
  APP_IDS: list,
  PUBLIC_REGISTRATION: bool,
  PRIVATE_SITE: bool,
  TOKEN_TTL: int(1),
  CORS_ORIGINS: list,
  TRUST_PROXY: { kind: 'proxies' },
  LOG_LEVEL: { kind: 'enum', values: LOG_LEVELS },
  SEED_DEMO: bool,
  PUBLIC_URL: { kind: 'httpUrl' },
  LANGUAGES: list,
  LOGIN_RATE_LIMIT: int(),
  LOGIN_ACCOUNT_FAILURES: int(),
  LOGIN_ACCOUNT_DELAY_MS: int(),
  LOGIN_ACCOUNT_DELAY_MAX_MS: int(),
  PDF_WARM_START: bool,
  PDF_QUEUE_SIZE: int(1),
  PDF_TIMEOUT_MS: int(1),
  PDF_KEPT_MB: int(),
  GUIDE_CACHE_MB: int(),
  GUIDE_CACHE_TTL: int(),
  ADMIN_EMAIL: text,
  ADMIN_PASSWORD: secret,
  PASSWORD_HASH_COST: int(1, 22),
  MAIL_TRANSPORT: { kind: 'mailTransport' },
  MAIL_FROM: text,
  BODY_LIMIT: int(1),
  REQUEST_TIMEOUT_MS: int(),
  HEADERS_TIMEOUT_MS: int(),
  TIMEOUT_CHECK_INTERVAL_MS: int(),
  JOB_POLL_MS: int(),
  JOB_WORKERS: bool,
  JOB_LEASE_SECONDS: int(),
  JOB_MEDIA_CONCURRENCY: int(),
  JOB_MAIL_CONCURRENCY: int(),
  JOB_OTHER_CONCURRENCY: int(),
  GUIDE_TYPES: list,
  MEDIA_MAX_BYTES: int(),
  MEDIA_MAX_IMAGE_BYTES: int(),
  MEDIA_MAX_DOCUMENT_BYTES: int(),
  IMAGE_CONCURRENCY: int(),
  IMAGE_QUEUE_SIZE: int(),
  IMAGE_MAX_PIXELS: int(),
  IMAGE_MAX_EDIT_PIXELS: int(),
  METRICS_TOKEN: secret,
  MEDIA_URL_SECRET: key,
  MEDIA_URL_SECRET_PREVIOUS: key,
  MEDIA_URL_TTL: int(),
  SHUTDOWN_DRAIN_MS: int(),
  MEDIA_QUOTA_BYTES: int(),
  MEDIA_ADMIN_QUOTA_BYTES: int(),
  MEDIA_UPLOADS_PER_HOUR: int(),
  MEDIA_STORAGE: { kind: 'enum', values: ['fs', 's3'] },
  MEDIA_URL_MODE: { kind: 'enum', values: ['app', 'redirect'] },
  MEDIA_DELETE_GRACE_S: int(),
  // Longer than any write takes from its file to its row (a video's encodes: VIDEO_ENCODE_TIMEOUT_MS each).
  MEDIA_ORPHAN_GRACE_S: int(3600),
  S3_BUCKET: text,
  S3_ENDPOINT: { kind: 'httpUrl' },
  S3_REGION: text,
  S3_FORCE_PATH_STYLE: bool,
  S3_PREFIX: text,
  FFMPEG_PATH: text,
  FFPROBE_PATH: text,
  VIDEO_MAX_SECONDS: int(),
  VIDEO_MAX_DIMENSION: int(),
  VIDEO_MAX_STREAMS: int(),
  VIDEO_PROBE_TIMEOUT_MS: int(),
  VIDEO_ENCODE_TIMEOUT_MS: int(),
  VIDEO_PROBE_MAX_OUTPUT_BYTES: int(),
  VIDEO_ENCODE_MAX_BYTES: int(),
  LIBRETRANSLATE_URL: { kind: 'httpUrl' },
  LIBRETRANSLATE_API_KEY: secret,
  OUTGOING_ALLOW: list,
  MODULE_MAX_BYTES: int(),
  MODULE_MAX_UNPACKED_BYTES: int(),
  MODULE_MAX_FILES: int(),
  MODULE_MAX_RATIO: int(),
  SITE_NAME: text,
  WEBHOOK_SECRETS_KEY: key,
  AUDIT_CHAIN_KEY: key,
  WEBHOOK_TIMEOUT_MS: int(),
  WEBHOOK_MAX_FAILURES: int(),
  WEBHOOKS_APPROVALS_DEFAULT: bool,
  APPROVAL_TOKEN_TTL: int(),
};

/** Keys a node shares with every other node (docs/operations.md, "Node keys"): at least this many bytes when set. */
export const NODE_KEY_MIN_BYTES = 32;
export const NODE_KEYS = ['MEDIA_URL_SECRET', 'WEBHOOK_SECRETS_KEY', 'AUDIT_CHAIN_KEY'] as const;

/**
 * Settings another setting's value makes required. With MEDIA_STORAGE=s3 (several nodes,
 * no shared DATA_DIR) a key generated into one node's data folder would differ on the
 * next: each node key must be set, the same on every node.
 */
export const REQUIRED_WITH: Record<string, Record<string, Array<{ names: readonly string[]; minBytes: number; why: string; shared: boolean }>>> = {
  MEDIA_STORAGE: {
    s3: [
      { names: ['S3_BUCKET'], minBytes: 1, why: 'the bucket that holds the stored files', shared: true },
      { names: NODE_KEYS, minBytes: NODE_KEY_MIN_BYTES, why: 'every node must share it', shared: true },
    ],
  },
};

/** A wrong setting: its message is the whole report, one line per setting, no stack needed. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** A URL's password as `***`; a value that is not a URL as it is. */
export function maskUrl(value: string): string {
  return value.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@\s]*:)[^@/\s]*@/i, '$1***@');
}

function shown(rule: SettingRule, value: string): string {
  if ((rule.kind === 'text' && rule.secret) || rule.kind === 'key') return '***';
  return maskUrl(value);
}

function httpUrlProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'an absolute http:// or https:// URL';
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname ? null : 'an absolute http:// or https:// URL';
}

/** The names Fastify's trust-proxy list (proxy-addr) takes for address ranges. */
export const PROXY_RANGE_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** TRUST_PROXY: a number of proxy hops, or a comma list of addresses, CIDR ranges and range names. */
function proxiesProblem(value: string): string | null {
  const allowed = `a number of proxy hops, or a comma list of addresses, CIDR ranges (10.0.0.0/8) and ${PROXY_RANGE_NAMES.join(', ')}`;
  if (/^[0-9]{1,2}$/.test(value)) return Number(value) >= 1 ? null : allowed;
  const items = value.split(',').map((s) => s.trim()).filter(Boolean);
  const valid = (item: string) => {
    if (PROXY_RANGE_NAMES.includes(item)) return true;
    const [address, prefix, ...rest] = item.split('/');
    const family = isIP(address);
    if (!family || rest.length) return false;
    if (prefix === undefined) return true;
    return /^[0-9]{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
  };
  return items.length > 0 && items.every(valid) ? null : allowed;
}

/** What is wrong with one value of setting `name`, as "what is allowed"; null when it is right. */
function problem(name: string, rule: SettingRule, raw: string): string | null {
  const value = raw.trim();
  switch (rule.kind) {
    case 'key':
      return importFormProblem(name, value);
    case 'int': {
      const n = /^[0-9]+$/.test(value) ? Number(value) : Number.NaN;
      const ok = Number.isSafeInteger(n) && n >= (rule.min ?? 0) && n <= (rule.max ?? Number.MAX_SAFE_INTEGER);
      if (ok) return null;
      return rule.max === Number.MAX_SAFE_INTEGER || rule.max === undefined ? `an integer of at least ${rule.min ?? 0}` : `an integer from ${rule.min ?? 0} to ${rule.max}`;
    }
    case 'bool':
      return [...TRUE_WORDS, ...FALSE_WORDS].includes(value.toLowerCase()) ? null : `one of ${[...TRUE_WORDS, ...FALSE_WORDS].join(', ')}`;
    case 'enum':
      return rule.values.includes(value) ? null : `one of ${rule.values.join(', ')}`;
    case 'httpUrl':
      return httpUrlProblem(value);
    case 'databaseUrl': {
      const allowed = 'postgres://user:password@host:5432/database, sqlite:PATH, or a file path';
      if (/^postgres(ql)?:\/\//i.test(value)) {
        try {
          const url = new URL(value);
          return url.hostname && url.pathname.length > 1 ? null : allowed;
        } catch {
          return allowed;
        }
      }
      if (/^sqlite:/i.test(value)) return null;
      // Any other scheme (mysql://, garbage://, file://) is a mistake, not a file name.
      return /^[a-z][a-z0-9+.-]*:\/\//i.test(value) ? allowed : null;
    }
    case 'mailTransport': {
      if (value === 'log') return null;
      const allowed = 'log, or smtp://user:password@host:port (smtps:// for TLS)';
      try {
        const url = new URL(value);
        return (url.protocol === 'smtp:' || url.protocol === 'smtps:') && url.hostname ? null : allowed;
      } catch {
        return allowed;
      }
    }
    case 'proxies':
      return proxiesProblem(value);
    case 'text':
    case 'list':
      return null;
  }
}

/**
 * Reads the environment against SETTINGS: throws a ConfigError naming every wrong value.
 * An unset or empty setting takes its default.
 */
export function checkSettings(env: NodeJS.ProcessEnv): void {
  const lines: string[] = [];
  for (const [name, rule] of Object.entries(SETTINGS)) {
    const value = env[name];
    if (value === undefined || value === '') continue;
    const allowed = problem(name, rule, value);
    if (allowed) lines.push(`${name} must be ${allowed}, got "${shown(rule, value)}"`);
  }
  for (const [setting, byValue] of Object.entries(REQUIRED_WITH)) {
    const value = env[setting]?.trim();
    for (const required of (value ? byValue[value] : undefined) ?? []) {
      const what = `${required.minBytes > 1 ? `at least ${required.minBytes} bytes, ` : ''}the same on every node${required.minBytes > 1 ? ' (a node whose keys were generated into DATA_DIR: npm run keys:export prints them as settings)' : ''}`;
      for (const name of required.names) {
        const given = env[name] ?? '';
        if (!given.trim()) lines.push(`${name} must be set with ${setting}=${value} (${required.why}): ${what}`);
        else if (isImportForm(given)) continue; // its length is the import form's own rule, checked above
        else if (Buffer.byteLength(given, 'utf8') < required.minBytes) lines.push(`${name} must be at least ${required.minBytes} bytes with ${setting}=${value}, got ${Buffer.byteLength(given, 'utf8')}`);
      }
    }
  }
  if (lines.length) throw new ConfigError(lines.join('\n'));
}
