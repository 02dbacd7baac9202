// Node keys (src/node-keys.ts): the database keeps a fingerprint of each key every node must
// share; a node with another key is refused, naming the setting; MEDIA_URL_SECRET changes
// with MEDIA_URL_SECRET_PREVIOUS (old URLs verify for one URL lifetime), WEBHOOK_SECRETS_KEY
// with keys:rotate (rotateWebhookSecretsKey). Both databases; the refusal of a real start
// is test/reliability/node-keys-start.test.ts.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildTestApp } from './helpers/app.js';
import { makeAdmin } from './helpers/factories.js';
import { checkNodeKeys, fingerprint, nodeKeys, rotateWebhookSecretsKey } from '../src/node-keys.js';
import { signature, signatureLife, useMediaClock } from '../src/areas/media/media.urls.js';
import { openSecret } from '../src/areas/webhooks/webhooks.secrets.js';
import { checkSettings, ConfigError, NODE_KEY_MIN_BYTES } from '../src/config.rules.js';
import type { Config } from '../src/config.js';

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
});
