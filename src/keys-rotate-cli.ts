// `WEBHOOK_SECRETS_KEY_NEW=<new key> npm run keys:rotate`: re-seals every webhook signing key
// in the database of DATABASE_URL under the new key and moves the key's fingerprint to it,
// in one transaction (node-keys.ts). The current key is WEBHOOK_SECRETS_KEY (else
// DATA_DIR/webhook-secrets.key); the new one is read from the environment, never from the
// command line (which other users of the machine may read). Then give every node
// WEBHOOK_SECRETS_KEY=<new key> and restart it: a node still on the old key refuses to start.
// Exits 0 when done, 78 on a configuration problem (nothing changed).
import { loadConfigOrExit } from './config.js';
import { openDatabase } from './db/database.js';
import { NODE_KEY_MIN_BYTES } from './config.rules.js';
import { rotateWebhookSecretsKey } from './node-keys.js';

const config = loadConfigOrExit();
const newKey = process.env.WEBHOOK_SECRETS_KEY_NEW ?? '';
if (!newKey) {
  console.error(`usage: WEBHOOK_SECRETS_KEY_NEW=<new key, at least ${NODE_KEY_MIN_BYTES} bytes> npm run keys:rotate`);
  process.exit(78);
}
const handle = openDatabase(config.databaseUrl);
try {
  const done = await rotateWebhookSecretsKey(handle.db, config, newKey, NODE_KEY_MIN_BYTES);
  console.log(`re-sealed ${done.resealed} webhook signing key(s) under the new key` +
    (done.unreadable.length ? `; ${done.unreadable.length} could not be opened with the current key and were left as they were (subscriptions ${done.unreadable.join(', ')}: set their secretKey again)` : ''));
  console.log('Now set WEBHOOK_SECRETS_KEY to the new key on every node and restart them.');
} catch (err) {
  console.error(`configuration: ${(err as Error).message}; nothing changed`);
  process.exitCode = 78;
} finally {
  await handle.destroy();
}
