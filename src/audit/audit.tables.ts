// The audit log's table (docs/audit.md). Rows are written only by the appender at a
// transaction's commit (db/audit-append.ts) and never updated or deleted (triggers refuse).
export interface AuditLogTable {
  /** Gapless, increasing in commit order: assigned at the commit, under the chain's lock. */
  auditid: number;
  /** The app's clock at the change, in seconds. */
  time: number;
  /** The database's clock when the entry was appended, in seconds. */
  db_time: number;
  /** The acting account; null for the system and for failed logins of no account. */
  userid: number | null;
  /** The Admin behind an impersonation token. */
  impersonator_userid: number | null;
  /** One of AUDIT_ACTIONS (audit/actions.ts). */
  action: string;
  resource_type: string;
  resource_id: string;
  langid: string | null;
  revisionid_before: number | null;
  revisionid_after: number | null;
  /** What a signer attested (approved, rejected, reviewed...), with the stage's name. */
  meaning: string | null;
  /** The notes or change reason the user gave. */
  reason: string | null;
  /** JSON: { field: { old?, new? } } (audit/changes.ts); null when the action says it all. */
  changes: string | null;
  request_id: string | null;
  client_ip: string | null;
  /** The previous entry's hash (64 zeros before the first). */
  prev_hash: string;
  /** HMAC-SHA256 (AUDIT_CHAIN_KEY) over prev_hash and this entry's canonical content, hex. */
  hash: string;
}

export interface AuditTables {
  audit_log: AuditLogTable;
}
