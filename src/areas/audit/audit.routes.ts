// Reading the audit log (docs/audit.md): Admins only. A filtered list newest first with a
// cursor, the same selection exported (JSON lines or CSV) page by page as it is sent, and
// the chain's verification.
import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Kysely, Selectable } from 'kysely';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { Database } from '../../db/schema.js';
import type { AuditLogTable } from '../../audit/audit.tables.js';
import { errorResponses } from '../../http/schemas.js';
import { invalidField } from '../../http/errors.js';
import { auditChainKey } from '../../audit/key.js';
import { parseHead, verifyAuditChain } from '../../audit/verify.js';
import { AUDIT_ACTIONS, type AuditAction, type AuditResourceType } from '../../audit/actions.js';
import { AuditExportQuery, AuditListQuery, AuditPage, AuditVerifyQuery, AuditVerifyResult, type AuditQuery } from './audit.schemas.js';

const TAG = ['Audit log (extension)'];
const ADMIN = 'Admin only.';
/** Rows read at a time by an export. */
const EXPORT_PAGE = 500;

type Row = Selectable<AuditLogTable>;

/** The selection of `q`, newest first, below `beforeId` when given; every filter is served by an index ending in auditid. */
function selection(db: Kysely<Database>, q: AuditQuery, beforeId: number | undefined, limit: number) {
  let sel = db.selectFrom('audit_log').selectAll();
  if (q.resource_type !== undefined) sel = sel.where('resource_type', '=', q.resource_type);
  if (q.resource_id !== undefined) sel = sel.where('resource_id', '=', q.resource_id);
  if (q.userid !== undefined) sel = sel.where('userid', '=', q.userid);
  if (q.action !== undefined) sel = sel.where('action', '=', q.action);
  if (q.since !== undefined) sel = sel.where('time', '>=', q.since);
  if (q.until !== undefined) sel = sel.where('time', '<', q.until);
  if (beforeId !== undefined) sel = sel.where('auditid', '<', beforeId);
  return sel.orderBy('auditid', 'desc').limit(limit).execute();
}

const record = (r: Row) => ({
  ...r,
  auditid: Number(r.auditid), time: Number(r.time), db_time: Number(r.db_time),
  action: r.action as AuditAction, resource_type: r.resource_type as AuditResourceType,
  changes: r.changes === null ? null : JSON.parse(r.changes) as Record<string, { old?: unknown; new?: unknown }>,
});

const encodeCursor = (auditid: number) => Buffer.from(`a${auditid}`).toString('base64url');
function decodeCursor(cursor: string): number {
  const m = /^a(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!m) throw invalidField('cursor', 'cursor is not one this server gave.');
  return Number(m[1]);
}

const CSV_COLUMNS = ['auditid', 'time', 'db_time', 'userid', 'impersonator_userid', 'action', 'resource_type', 'resource_id', 'langid', 'revisionid_before',
  'revisionid_after', 'meaning', 'reason', 'changes', 'request_id', 'client_ip', 'prev_hash', 'hash'] as const;
function csvCell(v: unknown): string {
  if (v === null || v === undefined) return '';
  const s = String(v);
  // A cell a spreadsheet would run as a formula is quoted with a leading apostrophe.
  const safe = /^[=+\-@\t\r]/.test(s) ? `'${s}` : s;
  return /[",\n\r]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

export async function auditRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config } = app;

  app.get('/audit', {
    config: { auth: 'admin' },
    schema: {
      tags: TAG,
      summary: 'The audit log (extension)',
      description: `${ADMIN} Entries newest first (by auditid), filtered by resource, user, action and time; \`limit\` 1 to 200; \`next\` is the cursor of the next page (null at the end). A resource's history: \`?resource_type=guide&resource_id=7\`. The actions: ${AUDIT_ACTIONS.join(', ')}.`,
      querystring: AuditListQuery,
      response: { 200: AuditPage, ...errorResponses(401, 403, 422) },
    },
  }, async (request) => {
    const q = request.query;
    const rows = await selection(db, q, q.cursor === undefined ? undefined : decodeCursor(q.cursor), q.limit + 1);
    const more = rows.length > q.limit;
    const page = more ? rows.slice(0, q.limit) : rows;
    return { entries: page.map(record), next: more ? encodeCursor(Number(page[page.length - 1].auditid)) : null };
  });

  app.get('/audit/export', {
    config: { auth: 'admin' },
    schema: {
      tags: TAG,
      summary: 'Export the audit log (extension)',
      description: `${ADMIN} The selection of GET /audit (without its paging), newest first, streamed: \`format=jsonl\` (one entry per line, as GET /audit shows it) or \`csv\` (a header row; \`changes\` as JSON).`,
      querystring: AuditExportQuery,
      response: { 200: { description: 'JSON lines or CSV.', content: { 'application/x-ndjson': { schema: { type: 'string' } }, 'text/csv': { schema: { type: 'string' } } } }, ...errorResponses(401, 403, 422) },
    },
  }, async (request, reply) => {
    const q = request.query;
    const csv = q.format === 'csv';
    async function* lines() {
      if (csv) yield CSV_COLUMNS.join(',') + '\n';
      let before: number | undefined;
      for (;;) {
        const rows = await selection(db, q, before, EXPORT_PAGE);
        if (rows.length === 0) return;
        yield rows.map((r) => (csv ? CSV_COLUMNS.map((c) => csvCell(r[c])).join(',') : JSON.stringify(record(r))) + '\n').join('');
        if (rows.length < EXPORT_PAGE) return;
        before = Number(rows[rows.length - 1].auditid);
      }
    }
    reply.header('content-type', csv ? 'text/csv; charset=utf-8' : 'application/x-ndjson');
    reply.header('content-disposition', `attachment; filename="audit.${csv ? 'csv' : 'jsonl'}"`);
    return reply.send(Readable.from(lines()));
  });

  app.get('/audit/verify', {
    config: { auth: 'admin' },
    schema: {
      tags: TAG,
      summary: 'Verify the audit log\'s chain (extension)',
      description: `${ADMIN} Recomputes every entry's hash from \`from\` on (default: the first), in batches, and checks that auditids have no gap. Answers \`{"ok": true, "entries", "head"}\` or \`{"ok": false, "first_bad_auditid", "reason"}\`. Deleting the newest entries is detected only against a head recorded earlier (\`expect_head=AUDITID:HASH\`; docs/audit.md).`,
      querystring: AuditVerifyQuery,
      response: { 200: AuditVerifyResult, ...errorResponses(401, 403, 422) },
    },
  }, async (request) => {
    const { from, expect_head } = request.query;
    const expectHead = expect_head === undefined ? undefined : parseHead(expect_head);
    if (expectHead === null) throw invalidField('expect_head', 'expect_head must be AUDITID:HASH (64 hex digits).');
    return verifyAuditChain(db, auditChainKey(config), { from, expectHead });
  });
}
