// Webhook signing keys. A signing key cannot be stored hashed like a password or a token:
// every delivery needs the key itself to compute its signatures. So it is stored sealed
// (AES-256-GCM) with a server key that is not in the database (WEBHOOK_SECRETS_KEY: the
// SHA-256 of its text, or the 32 bytes of its import form `base64url:...`; else a random key
// kept in DATA_DIR/webhook-secrets.key, used as it is): a copy of the database alone does not
// give the keys away. No route ever answers a key; it is only written (`secretKey`).
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { isImportForm, KEY_FILES, keyFromDataDir, keyFromSetting } from '../../server-keys.js';
import type { Config } from '../../config.js';

const keys = new WeakMap<Config, Buffer>();

/** The key webhook signing keys are sealed with (node-keys.ts keeps its fingerprint). */
export function webhookSecretsKey(config: Config): Buffer {
  return serverKey(config);
}

function serverKey(config: Config): Buffer {
  const known = keys.get(config);
  if (known) return known;
  let key: Buffer;
  if (config.webhookSecretsKey && isImportForm(config.webhookSecretsKey)) {
    // The import form: the 32 bytes as they are, as the key file gives them.
    key = keyFromSetting('WEBHOOK_SECRETS_KEY', config.webhookSecretsKey);
  } else if (config.webhookSecretsKey) {
    // A text of any length: its SHA-256 is the AES-256 key.
    key = createHash('sha256').update(config.webhookSecretsKey, 'utf8').digest();
  } else {
    key = keyFromDataDir(config.dataDir, KEY_FILES.WEBHOOK_SECRETS_KEY, 32, "delete it (and set every webhook's secretKey again).");
    if (key.length !== 32) throw new Error(`DATA_DIR/webhook-secrets.key must hold exactly 32 bytes (AES-256); delete it and set every webhook's secretKey again.`);
  }
  keys.set(config, key);
  return key;
}

/** `v1.<iv>.<tag>.<ciphertext>` (base64url). */
export function sealSecret(config: Config, secret: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', serverKey(config), iv);
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), sealed.toString('base64url')].join('.');
}

/** The key, or null when it cannot be opened (the server key changed). */
export function openSecret(config: Config, sealed: string): string | null {
  const [version, iv, tag, data] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || data === undefined) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', serverKey(config), Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}
