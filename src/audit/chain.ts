// The audit log's chain: each entry's hash is HMAC-SHA256, keyed with AUDIT_CHAIN_KEY (not
// in the database), over the previous entry's hash and the entry's canonical content. An
// intruder with the database alone can neither edit an entry nor compute a new hash for it.
import { createHmac } from 'node:crypto';
import type { AuditLogTable } from './audit.tables.js';

/** The prev_hash of the first entry. */
export const GENESIS_HASH = '0'.repeat(64);

/** The columns the hash covers, in this order (every column but the hash itself). */
export const CHAINED_COLUMNS = [
  'auditid', 'time', 'db_time', 'userid', 'impersonator_userid', 'action', 'resource_type', 'resource_id', 'langid',
  'revisionid_before', 'revisionid_after', 'meaning', 'reason', 'changes', 'request_id', 'client_ip', 'prev_hash',
] as const satisfies ReadonlyArray<keyof AuditLogTable>;

export type ChainedEntry = Pick<AuditLogTable, (typeof CHAINED_COLUMNS)[number]>;

/**
 * The canonical content: a JSON array of the chained columns in their order (numbers as
 * numbers, absent values as null), so that the same row always gives the same bytes on
 * both databases.
 */
export function canonicalContent(entry: ChainedEntry): string {
  return JSON.stringify(CHAINED_COLUMNS.map((c) => {
    const v = entry[c];
    return v === undefined ? null : typeof v === 'string' || v === null ? v : Number(v);
  }));
}

/** The entry's hash (hex): HMAC over the previous hash (in the content) and the content. */
export function entryHash(key: Buffer, entry: ChainedEntry): string {
  return createHmac('sha256', key).update(canonicalContent(entry), 'utf8').digest('hex');
}
