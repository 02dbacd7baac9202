// AUDIT_CHAIN_KEY: the key of the audit log's chain (chain.ts). Not in the database: set by
// the operator, else a random key kept in DATA_DIR/audit-chain.key (server-keys.ts), the
// same for every process sharing the folder. Losing it makes the log unverifiable.
import { keyFromDataDir } from '../server-keys.js';
import type { Config } from '../config.js';

const KEY_FILE = 'audit-chain.key';

export function auditChainKey(config: Pick<Config, 'auditChainKey' | 'dataDir'>): Buffer {
  if (config.auditChainKey) {
    if (config.auditChainKey.length < 16) throw new Error('AUDIT_CHAIN_KEY must be at least 16 characters long.');
    return Buffer.from(config.auditChainKey, 'utf8');
  }
  return keyFromDataDir(config.dataDir, KEY_FILE, 32, 'restore it from your backup: entries hashed with another key no longer verify.');
}
