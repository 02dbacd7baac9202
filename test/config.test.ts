// The configuration's switches: the words that mean yes and no, the defaults, and a value
// that is neither, which stops the start with a message naming the setting (a typo such as
// SEED_DEMO=ture once turned the setting off without a word).
import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig, type Config } from '../src/config.js';

// Each switch with its default. Their fields are read through loadConfig as the server does.
const SWITCHES: Array<{ name: string; field: keyof Config; fallback: boolean; env?: Record<string, string> }> = [
  { name: 'PUBLIC_REGISTRATION', field: 'publicRegistration', fallback: false, env: { APP_IDS: 'mobile' } },
  { name: 'PG_PREPARED_STATEMENTS', field: 'pgPreparedStatements', fallback: true },
  { name: 'SEED_DEMO', field: 'seedDemo', fallback: true },
  { name: 'WEBHOOKS_APPROVALS_DEFAULT', field: 'webhooksApprovalsDefault', fallback: true },
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
