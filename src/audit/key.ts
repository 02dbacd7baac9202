// AUDIT_CHAIN_KEY: the key of the audit log's chain (chain.ts). Not in the database: set by
// the operator (a text, or the bytes of the import form `base64url:...`), else a random key
// kept in DATA_DIR/audit-chain.key (server-keys.ts), the same for every process sharing the
// folder. Losing it makes the log unverifiable.
import { isImportForm, KEY_FILES, keyFromDataDir, keyFromSetting } from '../server-keys.js';
import type { Config } from '../config.js';

export function auditChainKey(config: Pick<Config, 'auditChainKey' | 'dataDir'>): Buffer {
  if (config.auditChainKey) {
    if (isImportForm(config.auditChainKey)) return keyFromSetting('AUDIT_CHAIN_KEY', config.auditChainKey);
    if (config.auditChainKey.length < 16) throw new Error('AUDIT_CHAIN_KEY must be at least 16 characters long.');
    return Buffer.from(config.auditChainKey, 'utf8');
  }
  return keyFromDataDir(config.dataDir, KEY_FILES.AUDIT_CHAIN_KEY, 32, 'restore it from your backup: entries hashed with another key no longer verify.');
}
