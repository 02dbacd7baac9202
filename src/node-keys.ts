// Node keys: the keys every server process and every node on one database must share, because
// what one signs or seals another must verify or open (docs/operations.md, "Node keys"):
//   - MEDIA_URL_SECRET signs media URLs (areas/media/media.urls.ts);
//   - WEBHOOK_SECRETS_KEY seals webhook signing keys in the database (webhooks.secrets.ts);
//   - AUDIT_CHAIN_KEY chains the audit log (audit/key.ts).
// The database keeps a fingerprint of each (HMAC-SHA256 of a fixed label under the key, never
// the key), in site_state: the first start records it, and a node whose key differs refuses
// to start, naming the setting. A changed MEDIA_URL_SECRET given with the old one as
// MEDIA_URL_SECRET_PREVIOUS is taken as a change: the fingerprint moves to the new key and
// URLs signed with the old one verify for one URL lifetime more. The webhook key changes
// with `npm run keys:rotate` (keys-rotate.ts); the audit chain's key does not change.
import { createHmac } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from './db/schema.js';
import type { Config } from './config.js';
import type { NODE_KEYS } from './config.rules.js';
import { acceptPreviousMediaKey, mediaUrlKey } from './areas/media/media.urls.js';
import { webhookSecretsKey } from './areas/webhooks/webhooks.secrets.js';
import { auditChainKey } from './audit/key.js';
import { isImportForm, keyFromSetting } from './server-keys.js';

export type NodeKey = (typeof NODE_KEYS)[number];

const LABEL = 'content-platform node key fingerprint v1';

/** What the database keeps of a key: HMAC-SHA256 of a fixed label under it. */
export const fingerprint = (key: Buffer): string => createHmac('sha256', key).update(LABEL).digest('base64url');

export const fingerprintKey = (name: NodeKey) => `key_fingerprint:${name}`;
const changedKey = (name: NodeKey) => `key_changed:${name}`;

/** The keys this node uses, by setting (from the setting, else DATA_DIR's key files). */
export function nodeKeys(config: Config): Record<NodeKey, Buffer> {
  return { MEDIA_URL_SECRET: mediaUrlKey(config), WEBHOOK_SECRETS_KEY: webhookSecretsKey(config), AUDIT_CHAIN_KEY: auditChainKey(config) };
}

/** The database's fingerprint of `name`, recorded as `print` when it has none yet (the first start). */
async function recorded(db: Kysely<Database>, name: NodeKey, print: string): Promise<string> {
  await db.insertInto('site_state').values({ key: fingerprintKey(name), value: print }).onConflict((oc) => oc.column('key').doNothing()).execute();
  const row = await db.selectFrom('site_state').select('value').where('key', '=', fingerprintKey(name)).executeTakeFirstOrThrow();
  return row.value;
}

/**
 * Checks this node's keys against the fingerprints the database keeps (recording those it
 * lacks): answers one line per key that differs, naming its setting; none when all agree.
 * `now`: the app's clock, for a change of MEDIA_URL_SECRET.
 */
export async function checkNodeKeys(db: Kysely<Database>, config: Config, now: number): Promise<string[]> {
  const problems: string[] = [];
  for (const [name, key] of Object.entries(nodeKeys(config)) as Array<[NodeKey, Buffer]>) {
    const print = fingerprint(key);
    const seen = await recorded(db, name, print);
    if (name === 'MEDIA_URL_SECRET' && config.mediaUrlSecretPrevious) {
      const old = fingerprint(keyFromSetting('MEDIA_URL_SECRET_PREVIOUS', config.mediaUrlSecretPrevious));
      if (seen === old) {
        // The change, made once (by the first node started with the new key).
        await db.transaction().execute(async (trx) => {
          const moved = await trx.updateTable('site_state').set({ value: print }).where('key', '=', fingerprintKey(name)).where('value', '=', old).executeTakeFirst();
          if (Number(moved.numUpdatedRows) === 1) {
            await trx.insertInto('site_state').values({ key: changedKey(name), value: String(now) })
              .onConflict((oc) => oc.column('key').doUpdateSet({ value: String(now) })).execute();
          }
        });
      }
      if (seen === old || seen === print) {
        const changed = await db.selectFrom('site_state').select('value').where('key', '=', changedKey(name)).executeTakeFirst();
        if (changed) acceptPreviousMediaKey(config, Number(changed.value) + 2 * config.mediaUrlTtl);
        continue;
      }
    }
    if (seen !== print) {
      problems.push(`${name} differs from the key this database has seen (its fingerprint): every node on the database must be given the same ${name}` +
        (name === 'MEDIA_URL_SECRET' ? ' (to change it, give the old one as MEDIA_URL_SECRET_PREVIOUS)' : name === 'WEBHOOK_SECRETS_KEY' ? ' (to change it: npm run keys:rotate)' : ' (it cannot change: the audit log would no longer verify)'));
    }
  }
  return problems;
}

/** What a rotation did: signing keys re-sealed, and those the current key could not open (left as they were: unusable before too). */
export interface Rotation {
  resealed: number;
  unreadable: number[];
}

/**
 * Re-seals every webhook signing key under `newKey` and moves WEBHOOK_SECRETS_KEY's
 * fingerprint to it, in one transaction (`npm run keys:rotate`). The current key must be
 * the one the database has seen; the new one at least NODE_KEY_MIN_BYTES.
 */
export async function rotateWebhookSecretsKey(db: Kysely<Database>, config: Config, newKey: string, minBytes: number): Promise<Rotation> {
  if (isImportForm(newKey)) keyFromSetting('WEBHOOK_SECRETS_KEY_NEW', newKey); // throws, naming it, when the import form is wrong
  else if (Buffer.byteLength(newKey, 'utf8') < minBytes) throw new Error(`the new WEBHOOK_SECRETS_KEY must be at least ${minBytes} bytes`);
  const { openSecret, sealSecret } = await import('./areas/webhooks/webhooks.secrets.js');
  const next: Config = { ...config, webhookSecretsKey: newKey };
  const current = fingerprint(webhookSecretsKey(config));
  return db.transaction().execute(async (trx) => {
    if ((await recorded(trx, 'WEBHOOK_SECRETS_KEY', current)) !== current) {
      throw new Error('WEBHOOK_SECRETS_KEY (the current key, or DATA_DIR/webhook-secrets.key) differs from the key this database has seen: give the current key to rotate from it');
    }
    const rows = await trx.selectFrom('webhook_subscriptions').select(['subscriptionid', 'secret_sealed']).orderBy('subscriptionid').execute();
    const out: Rotation = { resealed: 0, unreadable: [] };
    for (const row of rows) {
      const secret = openSecret(config, row.secret_sealed);
      if (secret === null) {
        out.unreadable.push(row.subscriptionid);
        continue;
      }
      await trx.updateTable('webhook_subscriptions').set({ secret_sealed: sealSecret(next, secret) }).where('subscriptionid', '=', row.subscriptionid).execute();
      out.resealed++;
    }
    await trx.updateTable('site_state').set({ value: fingerprint(webhookSecretsKey(next)) }).where('key', '=', fingerprintKey('WEBHOOK_SECRETS_KEY')).execute();
    return out;
  });
}
