// Verifying the audit log's chain (docs/audit.md): every entry read in auditid order, in
// batches (the event loop gets a turn between them), its hash recomputed with the key and
// compared, its prev_hash compared with the entry before, and auditid checked gapless. The
// first entry that fails is named, with why. Deleting the newest entries leaves a chain
// that holds: only a head recorded earlier (`expectHead`) tells.
import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { entryHash, GENESIS_HASH } from './chain.js';

export type VerifyResult =
  | { ok: true; entries: number; head: { auditid: number; hash: string } | null }
  | { ok: false; first_bad_auditid: number; reason: string };

export interface VerifyOptions {
  /** Start at this auditid, trusting the stored hash of the entry before it (a checkpoint verified earlier). */
  from?: number;
  /** A head an operator recorded earlier: that entry must still exist with that hash. */
  expectHead?: { auditid: number; hash: string };
  batchSize?: number;
}

/** Parses `ID:HASH` (an operator's recorded head); null when it is not one. */
export function parseHead(text: string): { auditid: number; hash: string } | null {
  const m = /^(\d{1,15}):([0-9a-f]{64})$/.exec(text.trim());
  return m ? { auditid: Number(m[1]), hash: m[2] } : null;
}

export async function verifyAuditChain(db: Kysely<Database>, key: Buffer, options: VerifyOptions = {}): Promise<VerifyResult> {
  const batchSize = options.batchSize ?? 1000;
  const from = Math.max(1, options.from ?? 1);
  let expected = from;
  let prevHash = GENESIS_HASH;
  if (from > 1) {
    const before = await db.selectFrom('audit_log').select('hash').where('auditid', '=', from - 1).executeTakeFirst();
    if (!before) return { ok: false, first_bad_auditid: from - 1, reason: `entry ${from - 1}, the checkpoint before ?from=${from}, is missing (deleted)` };
    prevHash = before.hash;
  } else {
    const stray = await db.selectFrom('audit_log').select('auditid').where('auditid', '<', 1).orderBy('auditid').limit(1).executeTakeFirst();
    if (stray) return { ok: false, first_bad_auditid: Number(stray.auditid), reason: `entry ${stray.auditid} precedes the chain's first entry (inserted)` };
  }
  let entries = 0;
  let head: { auditid: number; hash: string } | null = null;
  const expectHead = options.expectHead;
  for (;;) {
    const rows = await db.selectFrom('audit_log').selectAll().where('auditid', '>=', expected).orderBy('auditid').limit(batchSize).execute();
    for (const row of rows) {
      const auditid = Number(row.auditid);
      if (auditid !== expected) {
        return { ok: false, first_bad_auditid: expected, reason: `entry ${expected} is missing (deleted): the next entry is ${auditid}` };
      }
      if (row.prev_hash !== prevHash) {
        return { ok: false, first_bad_auditid: auditid, reason: `entry ${auditid}'s prev_hash is not the hash of entry ${auditid - 1} (an entry inserted, or edited)` };
      }
      if (entryHash(key, { ...row, auditid, time: Number(row.time), db_time: Number(row.db_time) }) !== row.hash) {
        return { ok: false, first_bad_auditid: auditid, reason: `entry ${auditid}'s hash does not match its content (edited, or not written by the server)` };
      }
      if (expectHead && auditid === expectHead.auditid && row.hash !== expectHead.hash) {
        return { ok: false, first_bad_auditid: auditid, reason: `entry ${auditid}'s hash is not the recorded head's` };
      }
      prevHash = row.hash;
      head = { auditid, hash: row.hash };
      entries++;
      expected++;
    }
    if (rows.length < batchSize) break;
    await nextTurn();
  }
  if (expectHead && (head?.auditid ?? from - 1) < expectHead.auditid) {
    const first = (head?.auditid ?? from - 1) + 1;
    return { ok: false, first_bad_auditid: first, reason: `the log ends at entry ${first - 1}, before the recorded head ${expectHead.auditid}: entries ${first} to ${expectHead.auditid} were deleted` };
  }
  return { ok: true, entries, head };
}
