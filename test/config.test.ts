// The configuration's switches: the words that mean yes and no, the defaults, and a value
// that is neither, which stops the start with a message naming the setting (a typo such as
// SEED_DEMO=ture once turned the setting off without a word).
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, type Config } from '../src/config.js';
import { SETTINGS } from '../src/config.rules.js';

// Each switch with its default. Their fields are read through loadConfig as the server does.
const SWITCHES: Array<{ name: string; field: keyof Config; fallback: boolean; env?: Record<string, string> }> = [
  { name: 'PUBLIC_REGISTRATION', field: 'publicRegistration', fallback: false, env: { APP_IDS: 'mobile' } },
  { name: 'PG_PREPARED_STATEMENTS', field: 'pgPreparedStatements', fallback: true },
  { name: 'SEED_DEMO', field: 'seedDemo', fallback: true },
  { name: 'WEBHOOKS_APPROVALS_DEFAULT', field: 'webhooksApprovalsDefault', fallback: true },
  { name: 'JOB_WORKERS', field: 'jobWorkers', fallback: true },
];

describe('configuration switches', () => {
  for (const s of SWITCHES) {
    it(`${s.name}: yes and no words in any case, the default when unset or empty, anything else refused`, () => {
      const read = (value: string | undefined) => loadConfig({ ...s.env, ...(value === undefined ? {} : { [s.name]: value }) })[s.field];
      for (const yes of ['1', 'true', 'TRUE', 'Yes', 'on', ' true ']) expect(read(yes), yes).toBe(true);
      for (const no of ['0', 'false', 'False', 'NO', 'off', ' off']) expect(read(no), no).toBe(false);
      expect(read(undefined)).toBe(s.fallback);
      expect(read('')).toBe(s.fallback);
      for (const bad of ['ture', 'maybe', '2', 'enabled', 'y']) {
        expect(() => read(bad), bad).toThrow(`${s.name} must be one of 1, true, yes, on, 0, false, no, off, got "${bad}"`);
      }
    });
  }

  it('the server does not start with a switch it cannot read, and says which', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cp-start-'));
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: { PATH: process.env.PATH, DATA_DIR: dir, PORT: '0', SEED_DEMO: 'ture', LOG_LEVEL: 'silent' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    expect(run.status).not.toBe(0);
    expect(run.stderr).toContain('SEED_DEMO must be one of 1, true, yes, on, 0, false, no, off, got "ture"');
  });
});

describe('settings are read by one declared schema', () => {
  it('every setting config.ts reads is declared in config.rules.ts', () => {
    const source = readFileSync(join(process.cwd(), 'src/config.ts'), 'utf8');
    const read = [...new Set([...source.matchAll(/env\.([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]))];
    expect(read.length).toBeGreaterThan(50);
    expect(read.filter((name) => !(name in SETTINGS))).toEqual([]);
  });

  const refused: Array<[string, string, string]> = [
    ['DATABASE_URL', 'mysql://root@localhost/db', 'DATABASE_URL must be postgres://user:password@host:5432/database, sqlite:PATH, or a file path, got "mysql://root@localhost/db"'],
    ['DATABASE_URL', 'garbage://x', 'DATABASE_URL must be'],
    ['DATABASE_URL', 'mysql://root:hunter2@localhost/db', 'got "mysql://root:***@localhost/db"'],
    ['PORT', '70000', 'PORT must be an integer from 0 to 65535, got "70000"'],
    ['PORT', '-1', 'PORT must be an integer from 0 to 65535'],
    ['PUBLIC_URL', 'not a url', 'PUBLIC_URL must be an absolute http:// or https:// URL, got "not a url"'],
    ['PUBLIC_URL', 'ftp://example.com', 'PUBLIC_URL must be an absolute http:// or https:// URL'],
    ['LOG_LEVEL', 'verbose', 'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"'],
    ['MAIL_TRANSPORT', 'smtp://bad host', 'MAIL_TRANSPORT must be log, or smtp://'],
    ['MAIL_TRANSPORT', 'smtp://user:pw@bad host', 'got "smtp://user:***@bad host"'],
    ['TOKEN_TTL', '0', 'TOKEN_TTL must be an integer of at least 1, got "0"'],
    ['GUIDE_CACHE_MB', '12.5', 'GUIDE_CACHE_MB must be an integer of at least 0, got "12.5"'],
    ['TRUST_PROXY', 'true', 'TRUST_PROXY must be a number of proxy hops, or a comma list of addresses, CIDR ranges (10.0.0.0/8) and loopback, linklocal, uniquelocal, got "true"'],
    ['TRUST_PROXY', '0', 'TRUST_PROXY must be a number of proxy hops'],
    ['TRUST_PROXY', '10.0.0.0/33', 'TRUST_PROXY must be'],
    ['TRUST_PROXY', 'loopback, proxy.example.com', 'TRUST_PROXY must be'],
  ];
  for (const [name, value, message] of refused) {
    it(`${name}=${value} is refused, naming the setting and what is allowed`, () => {
      expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
      expect(() => loadConfig({ [name]: value })).toThrow(message);
    });
  }

  it('a plain file path and the accepted forms stay accepted', () => {
    expect(loadConfig({ DATABASE_URL: './data/site.sqlite' }).databaseUrl).toBe('./data/site.sqlite');
    expect(loadConfig({ DATABASE_URL: 'sqlite::memory:' }).databaseUrl).toBe('sqlite::memory:');
    expect(loadConfig({ DATABASE_URL: 'postgresql://u:p@db.example.com:5432/site' }).databaseUrl).toContain('db.example.com');
    expect(loadConfig({ PUBLIC_URL: 'https://docs.example.com/' }).publicUrl).toBe('https://docs.example.com');
    expect(loadConfig({ MAIL_TRANSPORT: 'smtps://u:p@mail.example.com:465' }).mailTransport).toContain('mail.example.com');
    expect(loadConfig({ PORT: '0' }).port).toBe(0);
    expect(loadConfig({}).trustProxy).toBe(false);
    expect(loadConfig({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(loadConfig({ TRUST_PROXY: 'loopback, 10.0.0.0/8, fd00::/8, 192.0.2.7' }).trustProxy).toEqual(['loopback', '10.0.0.0/8', 'fd00::/8', '192.0.2.7']);
  });

  it('a secret is never shown', () => {
    expect(() => loadConfig({ PUBLIC_URL: 'x', ADMIN_PASSWORD: 'correct horse' })).not.toThrow('correct horse');
  });

  it('npm run check-config: one line per wrong setting and 78, no stack trace; 0 when valid', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cp-check-'));
    const run = (env: Record<string, string>) => spawnSync(process.execPath, ['--import', 'tsx', 'src/check-config.ts'], {
      env: { PATH: process.env.PATH, DATA_DIR: dir, ...env }, encoding: 'utf8', timeout: 60_000,
    });
    const bad = run({ PORT: '70000', LOG_LEVEL: 'verbose', DATABASE_URL: 'mysql://root:pw@localhost/db' });
    expect(bad.status).toBe(78);
    expect(bad.stderr.trim().split('\n')).toEqual([
      'configuration: PORT must be an integer from 0 to 65535, got "70000"',
      'configuration: DATABASE_URL must be postgres://user:password@host:5432/database, sqlite:PATH, or a file path, got "mysql://root:***@localhost/db"',
      'configuration: LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "verbose"',
    ]); // in the order the schema declares them
    expect(bad.stderr).not.toMatch(/\n\s+at /);
    const good = run({});
    expect(good.status, good.stderr).toBe(0);
    expect(good.stdout).toMatch(/^configuration: valid/);
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)('a PostgreSQL that refuses the connection stops the server with one line naming DATABASE_URL, its password masked', () => {
    const url = new URL(process.env.TEST_DATABASE_URL!);
    url.password = 'not-the-password';
    url.pathname = '/no_such_database_for_the_config_test';
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
      env: { PATH: process.env.PATH, DATA_DIR: mkdtempSync(join(tmpdir(), 'cp-pg-')), PORT: '0', DATABASE_URL: url.toString() },
      encoding: 'utf8', timeout: 60_000,
    });
    expect(run.status).toBe(78);
    expect(run.stderr).toContain(`configuration: DATABASE_URL (postgres://${url.username}:***@${url.host}/no_such_database_for_the_config_test): cannot connect:`);
    expect(run.stderr).not.toContain('not-the-password');
    expect(run.stderr).not.toMatch(/\n\s+at /);
  });
});
