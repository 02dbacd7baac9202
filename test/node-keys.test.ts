// Node keys (src/node-keys.ts): the database keeps a fingerprint of each key every node must
// share; a node with another key is refused, naming the setting; MEDIA_URL_SECRET changes
// with MEDIA_URL_SECRET_PREVIOUS (old URLs verify for one URL lifetime), WEBHOOK_SECRETS_KEY
// with keys:rotate (rotateWebhookSecretsKey). Keys generated into DATA_DIR given as settings
// in the import form (`base64url:`, npm run keys:export) are the same keys. Both databases;
// real starts (a refusal, a move to s3 with exported keys) are
// test/reliability/node-keys-start.test.ts.
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTestApp, testConfig } from './helpers/app.js';
import { makeAdmin } from './helpers/factories.js';
import { getFile, makeImage } from './helpers/factories/media.js';
import { testBucket } from './helpers/s3.js';
import { checkNodeKeys, fingerprint, nodeKeys, rotateWebhookSecretsKey } from '../src/node-keys.js';
import { signature, signatureLife, useMediaClock } from '../src/areas/media/media.urls.js';
import { openSecret } from '../src/areas/webhooks/webhooks.secrets.js';
import { checkSettings, ConfigError, NODE_KEY_MIN_BYTES } from '../src/config.rules.js';
import { loadConfig, type Config } from '../src/config.js';
import { exportedKeys, keyFromDataDir, KEY_FILES } from '../src/server-keys.js';
import { migrateStorage } from '../src/storage/migrate.js';
import { buildApp, BASE_PATH } from '../src/app.js';

const KEY = (c: string) => c.repeat(40);
const keyed = { mediaUrlSecret: KEY('m'), webhookSecretsKey: KEY('w'), auditChainKey: KEY('a') };

describe('node key fingerprints', () => {
  it('are recorded at the first check, never the key itself; a node with another key is refused, naming the setting', async () => {
    const t = await buildTestApp({ config: keyed });
    try {
      expect(await checkNodeKeys(t.db, t.config, t.clock.now())).toEqual([]);
      const rows = await t.db.selectFrom('site_state').selectAll().where('key', 'like', 'key_fingerprint:%').orderBy('key').execute();
      expect(rows.map((r) => r.key)).toEqual(['key_fingerprint:AUDIT_CHAIN_KEY', 'key_fingerprint:MEDIA_URL_SECRET', 'key_fingerprint:WEBHOOK_SECRETS_KEY']);
      const keys = nodeKeys(t.config);
      for (const r of rows) {
        const name = r.key.split(':')[1] as keyof typeof keys;
        expect(r.value).toBe(fingerprint(keys[name]));
        for (const k of Object.values(keys)) expect(r.value.includes(k.toString('base64url'))).toBe(false);
      }
      // The same keys again (another node): agreed.
      expect(await checkNodeKeys(t.db, { ...t.config, dataDir: mkdtempSync(join(tmpdir(), 'cp-node-')) }, t.clock.now())).toEqual([]);
      // One key differs: that setting, and only it, is named.
      const media = await checkNodeKeys(t.db, { ...t.config, mediaUrlSecret: KEY('x') }, t.clock.now());
      expect(media).toHaveLength(1);
      expect(media[0]).toMatch(/^MEDIA_URL_SECRET differs/);
      const webhooks = await checkNodeKeys(t.db, { ...t.config, webhookSecretsKey: KEY('x') }, t.clock.now());
      expect(webhooks).toHaveLength(1);
      expect(webhooks[0]).toMatch(/^WEBHOOK_SECRETS_KEY differs/);
      // No key set: the keys generated into another DATA_DIR differ, all three.
      const generated = await checkNodeKeys(t.db, { ...t.config, mediaUrlSecret: '', webhookSecretsKey: '', auditChainKey: '', dataDir: mkdtempSync(join(tmpdir(), 'cp-node-')) }, t.clock.now());
      expect(generated.map((line) => line.split(' ')[0])).toEqual(['MEDIA_URL_SECRET', 'WEBHOOK_SECRETS_KEY', 'AUDIT_CHAIN_KEY']);
      // A refused check changed nothing.
      expect(await t.db.selectFrom('site_state').selectAll().where('key', 'like', 'key_fingerprint:%').orderBy('key').execute()).toEqual(rows);
    } finally {
      await t.close();
    }
  });

  it('MEDIA_URL_SECRET changes with MEDIA_URL_SECRET_PREVIOUS: URLs signed with the old key verify for one URL lifetime, then not', async () => {
    const t = await buildTestApp({ config: { ...keyed, mediaUrlTtl: 3600 } });
    try {
      expect(await checkNodeKeys(t.db, t.config, t.clock.now())).toEqual([]);
      const old = new URLSearchParams(signature(t.config, 'images', 'guid1'));
      const changedAt = t.clock.now();
      // Each node's configuration signs on the app's clock.
      const node = (c: Config) => (useMediaClock(c, t.clock), c);
      const next = node({ ...t.config, mediaUrlSecret: KEY('n'), mediaUrlSecretPrevious: KEY('m') });
      // Without the old key given, the new one is refused.
      expect(await checkNodeKeys(t.db, { ...t.config, mediaUrlSecret: KEY('n') }, changedAt)).toHaveLength(1);
      expect(await checkNodeKeys(t.db, next, changedAt)).toEqual([]);
      // The database now knows the new key: a node still on the old one is refused.
      expect((await checkNodeKeys(t.db, { ...t.config }, changedAt))[0]).toMatch(/^MEDIA_URL_SECRET differs/);
      expect(signatureLife(next, 'images', 'guid1', old.get('exp'), old.get('sig'))).toBeGreaterThan(0);
      // Only for that image, and not a URL made later with the old key.
      expect(signatureLife(next, 'images', 'guid2', old.get('exp'), old.get('sig'))).toBe(0);
      const fresh = new URLSearchParams(signature(next, 'images', 'guid1'));
      expect(fresh.get('sig')).not.toBe(old.get('sig'));
      expect(signatureLife(next, 'images', 'guid1', fresh.get('exp'), fresh.get('sig'))).toBeGreaterThan(0);
      // Another node started later with both settings agrees, and accepts the old URLs too.
      const later = node({ ...next });
      t.clock.advance(600);
      expect(await checkNodeKeys(t.db, later, t.clock.now())).toEqual([]);
      expect(signatureLife(later, 'images', 'guid1', old.get('exp'), old.get('sig'))).toBeGreaterThan(0);
      t.clock.set(changedAt + 2 * 3600 + 1);
      expect(signatureLife(next, 'images', 'guid1', old.get('exp'), old.get('sig'))).toBe(0);
      // A URL signed with the old key after the change (an exp past one lifetime) never verifies.
      const forged = new URLSearchParams(signature(node({ ...t.config }), 'images', 'guid1'));
      expect(signatureLife(next, 'images', 'guid1', forged.get('exp'), forged.get('sig'))).toBe(0);
    } finally {
      await t.close();
    }
  });

  it('keys:rotate re-seals every webhook signing key under the new key and moves the fingerprint, in one transaction', async () => {
    const t = await buildTestApp({ config: keyed });
    try {
      const admin = await makeAdmin(t);
      for (const n of [1, 2]) {
        const res = await t.post('/webhooks/subscriptions', { token: admin.token, body: { title: `Receiver ${n}`, url: 'https://example.com/hook', eventKeys: ['Guides.Published'], secretKey: `signing-key-${n}` } });
        expect(res.statusCode, res.body).toBe(201);
      }
      expect(await checkNodeKeys(t.db, t.config, t.clock.now())).toEqual([]);
      // A new key too short, or a current key that is not the database's: refused, nothing changed.
      const before = await t.db.selectFrom('webhook_subscriptions').select(['subscriptionid', 'secret_sealed']).orderBy('subscriptionid').execute();
      await expect(rotateWebhookSecretsKey(t.db, t.config, 'short', NODE_KEY_MIN_BYTES)).rejects.toThrow(/at least 32 bytes/);
      await expect(rotateWebhookSecretsKey(t.db, t.config, `base64url:${Buffer.alloc(48, 1).toString('base64url')}`, NODE_KEY_MIN_BYTES)).rejects.toThrow(/^WEBHOOK_SECRETS_KEY_NEW must be base64url: followed by exactly 32 bytes .* decodes to 48 bytes/);
      await expect(rotateWebhookSecretsKey(t.db, { ...t.config, webhookSecretsKey: KEY('z') }, KEY('v'), NODE_KEY_MIN_BYTES)).rejects.toThrow(/WEBHOOK_SECRETS_KEY .* differs/);
      expect(await t.db.selectFrom('webhook_subscriptions').select(['subscriptionid', 'secret_sealed']).orderBy('subscriptionid').execute()).toEqual(before);

      expect(await rotateWebhookSecretsKey(t.db, t.config, KEY('v'), NODE_KEY_MIN_BYTES)).toEqual({ resealed: 2, unreadable: [] });
      const next: Config = { ...t.config, webhookSecretsKey: KEY('v') };
      const rows = await t.db.selectFrom('webhook_subscriptions').select(['subscriptionid', 'secret_sealed']).orderBy('subscriptionid').execute();
      expect(rows.map((r) => openSecret(next, r.secret_sealed))).toEqual(['signing-key-1', 'signing-key-2']);
      expect(rows.map((r) => openSecret({ ...t.config }, r.secret_sealed))).toEqual([null, null]);
      expect(await checkNodeKeys(t.db, next, t.clock.now())).toEqual([]);
      expect((await checkNodeKeys(t.db, { ...t.config }, t.clock.now()))[0]).toMatch(/^WEBHOOK_SECRETS_KEY differs/);
    } finally {
      await t.close();
    }
  });
});

describe('MEDIA_STORAGE=s3 requires the node keys', () => {
  const config = (env: NodeJS.ProcessEnv) => {
    try {
      checkSettings(env);
      return [];
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      return err.message.split('\n');
    }
  };
  it('names each missing or short key; with fs (one node) none is required', () => {
    const lines = config({ MEDIA_STORAGE: 's3', WEBHOOK_SECRETS_KEY: 'too short' });
    expect(lines.filter((l) => l.startsWith('MEDIA_URL_SECRET '))).toEqual([expect.stringMatching(/must be set with MEDIA_STORAGE=s3/)]);
    expect(lines.filter((l) => l.startsWith('WEBHOOK_SECRETS_KEY '))).toEqual([expect.stringMatching(/at least 32 bytes .* got 9/)]);
    expect(lines.filter((l) => l.startsWith('AUDIT_CHAIN_KEY '))).toEqual([expect.stringMatching(/must be set/)]);
    // The keys' values are never shown.
    expect(lines.join('\n')).not.toContain('too short');
    const keys = { MEDIA_URL_SECRET: KEY('m'), WEBHOOK_SECRETS_KEY: KEY('w'), AUDIT_CHAIN_KEY: KEY('a') };
    expect(config({ MEDIA_STORAGE: 's3', ...keys }).filter((l) => /^(MEDIA_URL_SECRET|WEBHOOK_SECRETS_KEY|AUDIT_CHAIN_KEY) /.test(l))).toEqual([]);
    expect(config({ MEDIA_STORAGE: 'fs' })).toEqual([]);
    expect(config({})).toEqual([]);
  });

  it('the import form base64url:<bytes>: canonical base64url of at least 32 bytes (the webhook key exactly 32), or the start is refused naming the setting', () => {
    const b64 = (n: number) => `base64url:${Buffer.alloc(n, 0xfb).toString('base64url')}`;
    const good = { MEDIA_URL_SECRET: b64(32), WEBHOOK_SECRETS_KEY: b64(32), AUDIT_CHAIN_KEY: b64(64) };
    expect(config({ MEDIA_STORAGE: 's3', S3_BUCKET: 'b', ...good })).toEqual([]);
    expect(config({ ...good, MEDIA_URL_SECRET_PREVIOUS: b64(40) })).toEqual([]);
    expect(b64(32).endsWith('s')).toBe(true);
    const refused: Array<[string, string, RegExp]> = [
      ['MEDIA_URL_SECRET', b64(31), /^MEDIA_URL_SECRET must be base64url: followed by at least 32 bytes in canonical base64url .*: this value decodes to 31 bytes, got "\*\*\*"$/],
      ['AUDIT_CHAIN_KEY', `${b64(32)}=`, /^AUDIT_CHAIN_KEY must be .*: this value is not canonical base64url/],
      ['AUDIT_CHAIN_KEY', b64(32).replace(/-/g, '+'), /not canonical base64url/],
      // The last character of 32 bytes carries 4 bits and 2 unused ones: 's' (101100) and 't' (101101) decode alike; only 's' is canonical.
      ['MEDIA_URL_SECRET', `${b64(32).slice(0, -1)}t`, /not canonical base64url/],
      ['WEBHOOK_SECRETS_KEY', b64(48), /^WEBHOOK_SECRETS_KEY must be base64url: followed by exactly 32 bytes .*: this value decodes to 48 bytes/],
      ['MEDIA_URL_SECRET_PREVIOUS', 'base64url:', /^MEDIA_URL_SECRET_PREVIOUS must be .*decodes to 0 bytes/],
    ];
    for (const [name, value, line] of refused) {
      // With s3 (where the keys are required) and without: one line, naming the setting, never the value.
      for (const storage of [{ MEDIA_STORAGE: 's3', S3_BUCKET: 'b' }, {}]) {
        const lines = config({ ...storage, ...good, [name]: value });
        expect(lines, `${name}=${value}`).toEqual([expect.stringMatching(line)]);
        expect(lines[0]).not.toContain(value.slice('base64url:'.length) || 'never');
      }
    }
    // The same bytes given as text (no prefix) are a text, as before.
    expect(config({ MEDIA_STORAGE: 's3', S3_BUCKET: 'b', ...good, AUDIT_CHAIN_KEY: b64(64).slice('base64url:'.length) })).toEqual([]);
  });
});

describe('keys generated into DATA_DIR, given as settings in the import form (npm run keys:export)', () => {
  it('are the same keys: a node on s3 with them agrees with the fingerprints, verifies old media URLs, opens the webhook keys and the audit chain', async () => {
    // A single node: no key set, all three generated into its data folder, files on the filesystem.
    const t = await buildTestApp({ config: { storage: { kind: 'fs' } } });
    const bucket = await testBucket();
    let other: Awaited<ReturnType<typeof buildApp>> | undefined;
    try {
      const admin = await makeAdmin(t);
      const img = await makeImage(t, admin);
      const oldUrl: string = img.image.image.thumbnail;
      expect(oldUrl).toMatch(/\?exp=\d+&sig=/);
      const hook = await t.post('/webhooks/subscriptions', { token: admin.token, body: { title: 'Receiver', url: 'https://example.com/hook', eventKeys: ['Guides.Published'], secretKey: 'the signing key' } });
      expect(hook.statusCode, hook.body).toBe(201);
      expect(await checkNodeKeys(t.db, t.config, t.clock.now())).toEqual([]);
      const verify = async (app: typeof t.app) => {
        const res = await app.inject({ method: 'GET', url: `${BASE_PATH}/audit/verify`, headers: { authorization: `api ${admin.token}` } });
        expect(res.statusCode, res.body).toBe(200);
        return res.json() as { ok: boolean; entries: number };
      };
      const before = await verify(t.app);
      expect(before).toMatchObject({ ok: true });
      expect(before.entries).toBeGreaterThan(0);

      // What keys:export prints: each file's bytes, prefixed.
      const exported = exportedKeys(t.config.dataDir);
      const env: Record<string, string> = {};
      for (const key of exported) {
        expect('value' in key ? key.value : key, key.name).toMatch(/^base64url:[\w-]{43}$/);
        if ('value' in key) env[key.name] = key.value;
        expect(Buffer.from(env[key.name].slice('base64url:'.length), 'base64url').equals(keyFromDataDir(t.config.dataDir, KEY_FILES[key.name], 32, ''))).toBe(true);
      }
      expect(Object.keys(env)).toEqual(['MEDIA_URL_SECRET', 'WEBHOOK_SECRETS_KEY', 'AUDIT_CHAIN_KEY']);

      // The move: the files into the bucket, then a node with MEDIA_STORAGE=s3 (which requires the keys as settings), a data folder of its own.
      await migrateStorage(t.config, { kind: 'fs' }, bucket.storage, () => {});
      const settings = loadConfig({ MEDIA_STORAGE: 's3', S3_BUCKET: bucket.storage.bucket, S3_ENDPOINT: bucket.storage.endpoint, S3_FORCE_PATH_STYLE: 'true', ...env });
      const node = testConfig({
        databaseUrl: t.config.databaseUrl, mediaStorage: 's3', storage: settings.storage,
        mediaUrlSecret: settings.mediaUrlSecret, webhookSecretsKey: settings.webhookSecretsKey, auditChainKey: settings.auditChainKey,
      });
      expect(node.dataDir).not.toBe(t.config.dataDir);
      // The start's check: the database's fingerprints agree.
      expect(await checkNodeKeys(t.db, node, t.clock.now())).toEqual([]);
      // The same text without the prefix is another key (the webhook key's text is hashed; the others are its UTF-8 bytes).
      const unprefixed = (name: keyof typeof env) => env[name].slice('base64url:'.length);
      expect((await checkNodeKeys(t.db, { ...node, mediaUrlSecret: unprefixed('MEDIA_URL_SECRET'), webhookSecretsKey: unprefixed('WEBHOOK_SECRETS_KEY'), auditChainKey: unprefixed('AUDIT_CHAIN_KEY') }, t.clock.now())).map((l) => l.split(' ')[0]))
        .toEqual(['MEDIA_URL_SECRET', 'WEBHOOK_SECRETS_KEY', 'AUDIT_CHAIN_KEY']);

      other = await buildApp({ config: node, handle: t.app.dbHandle, clock: t.clock, logger: false });
      await other.ready();
      // A media URL the first node handed out is served by the new one, from the bucket; a changed signature is not.
      const served = await other.inject({ method: 'GET', url: oldUrl.replace(t.config.publicUrl, '') });
      expect(served.statusCode).toBe(200);
      expect(served.rawPayload.equals((await getFile(t, oldUrl)).rawPayload)).toBe(true);
      const forged = oldUrl.replace(/sig=(.)/, (_m, c: string) => `sig=${c === 'A' ? 'B' : 'A'}`);
      expect((await other.inject({ method: 'GET', url: forged.replace(t.config.publicUrl, '') })).statusCode).not.toBe(200);
      // The webhook signing key sealed by the first node opens.
      const row = await t.db.selectFrom('webhook_subscriptions').select('secret_sealed').executeTakeFirstOrThrow();
      expect(openSecret(node, row.secret_sealed)).toBe('the signing key');
      // The audit chain (the first node's entries, then one the new node writes) verifies on both.
      const more = await other.inject({ method: 'POST', url: `${BASE_PATH}/webhooks/subscriptions`, headers: { authorization: `api ${admin.token}`, 'content-type': 'application/json' }, payload: JSON.stringify({ title: 'Second', url: 'https://example.com/hook2', eventKeys: ['Guides.Published'], secretKey: 'another key' }) });
      expect(more.statusCode, more.body).toBe(201);
      for (const app of [other, t.app]) expect(await verify(app)).toMatchObject({ ok: true, entries: before.entries + 1 });
    } finally {
      await other?.close();
      await t.close();
      await bucket.release();
    }
  }, 120_000);

  it('a key file that cannot be a setting is named, not printed; a missing file is not made', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cp-export-'));
    writeFileSync(join(dir, KEY_FILES.MEDIA_URL_SECRET), Buffer.alloc(20, 7).toString('base64url'));
    writeFileSync(join(dir, KEY_FILES.WEBHOOK_SECRETS_KEY), Buffer.alloc(32, 8).toString('base64url'));
    const keys = exportedKeys(dir);
    expect(keys[0]).toEqual({ name: 'MEDIA_URL_SECRET', file: join(dir, 'media-url.key'), problem: `${join(dir, 'media-url.key')} holds 20 bytes, not a key MEDIA_URL_SECRET accepts (at least 32 bytes)` });
    expect(keys[1]).toEqual({ name: 'WEBHOOK_SECRETS_KEY', file: join(dir, 'webhook-secrets.key'), value: `base64url:${Buffer.alloc(32, 8).toString('base64url')}` });
    expect(keys[2]).toEqual({ name: 'AUDIT_CHAIN_KEY', file: join(dir, 'audit-chain.key'), missing: true });
    expect(existsSync(join(dir, 'audit-chain.key'))).toBe(false);
  });
});
