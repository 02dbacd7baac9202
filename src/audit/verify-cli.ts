// `npm run audit:verify [-- --expect-head ID:HASH] [--from AUDITID]`: verifies the audit
// log's chain in the database of DATABASE_URL with AUDIT_CHAIN_KEY (else DATA_DIR's key),
// beside a running server (it only reads). Prints the answer as JSON; exits 0 when the
// chain holds, 1 when not, 2 on a usage error.
import { parseArgs } from 'node:util';
import { loadConfig } from '../config.js';
import { openDatabase } from '../db/database.js';
import { auditChainKey } from './key.js';
import { parseHead, verifyAuditChain } from './verify.js';

const { values } = parseArgs({ options: { 'expect-head': { type: 'string' }, from: { type: 'string' } } });
const expectHead = values['expect-head'] === undefined ? undefined : parseHead(values['expect-head']);
const from = values.from === undefined ? undefined : Number(values.from);
if (expectHead === null || (from !== undefined && !(Number.isInteger(from) && from >= 1))) {
  console.error('usage: npm run audit:verify -- [--expect-head AUDITID:HASH] [--from AUDITID]');
  process.exit(2);
}
const config = loadConfig();
const handle = openDatabase(config.databaseUrl);
try {
  const result = await verifyAuditChain(handle.db, auditChainKey(config), { expectHead, from });
  console.log(JSON.stringify(result));
  process.exitCode = result.ok ? 0 : 1;
} finally {
  await handle.destroy();
}
