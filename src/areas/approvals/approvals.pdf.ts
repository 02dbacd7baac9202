// What the PDF of an approval request (GET /approvals/request/{id}/pdf) shows: the guide and
// the revision signed, the release, the process, each stage with each signature (the
// signer's printed name as they signed, the time, the meaning, the method, the notes, and
// the signature's audit entry with its id and hash), and the audit entries of the request
// (and the release an approval published) with their ids and hashes. Read here into a plain
// object; the layout (src/pdf/approval.render.ts) runs in the PDF worker thread, which keeps
// the PDF per request keyed by all of this. Dated by the last change it shows: the same
// request gives the same bytes.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { resourceTrail, type TrailEntry } from '../../audit/trail.js';
import { AUDIT_SHOWN, when } from '../../pdf/pdf.render.js';
import { NOTES_SHOWN, SIGNATURES_SHOWN, type ApprovalPdfContent } from '../../pdf/approval.render.js';
import { requestStages, type RequestRow } from './approvals.queries.js';
import { signatureMeaning } from './approvals.records.js';

type Db = Kysely<Database>;

const clip = (s: string) => ({ text: s.slice(0, NOTES_SHOWN), more: Math.max(0, s.length - NOTES_SHOWN) });

/** The approval.released entry of the request on its guide (recorded on the guide, naming the request in its changes). */
async function releasedEntry(db: Db, r: RequestRow): Promise<TrailEntry | undefined> {
  if (r.status !== 'approved') return undefined;
  const rows = await db.selectFrom('audit_log').select(['auditid', 'time', 'userid', 'action', 'meaning', 'hash', 'changes'])
    .where('resource_type', '=', 'guide').where('resource_id', '=', String(r.guideid)).where('action', '=', 'approval.released')
    .where('revisionid_after', '=', r.revisionid).orderBy('auditid').limit(20).execute();
  const row = rows.find((e) => (JSON.parse(e.changes ?? '{}') as { approval_requestid?: { new?: unknown } }).approval_requestid?.new === r.approval_requestid);
  return row && { auditid: Number(row.auditid), time: Number(row.time), userid: row.userid, action: row.action, meaning: row.meaning, hash: row.hash };
}

/** What the PDF of approval request `r` shows. */
export async function approvalPdfContent(db: Db, r: RequestRow): Promise<ApprovalPdfContent> {
  const stages = (await requestStages(db, [r.approval_requestid])).get(r.approval_requestid) ?? [];
  const [signatures, release, process, guide, trail, released, signed] = await Promise.all([
    db.selectFrom('approval_signatures').selectAll().where('approval_requestid', '=', r.approval_requestid).orderBy('approval_request_stage_signatureid').execute(),
    db.selectFrom('guide_releases').select(['releaseid', 'title', 'type', 'version', 'notes', 'status']).where('releaseid', '=', r.releaseid).executeTakeFirst(),
    db.selectFrom('approval_processes').select(['name']).where('approval_processid', '=', r.approval_processid).executeTakeFirst(),
    db.selectFrom('guides').select(['title']).where('guideid', '=', r.guideid).where('langid', '=', r.langid).executeTakeFirst(),
    resourceTrail(db, ['approval_request'], r.approval_requestid, AUDIT_SHOWN),
    releasedEntry(db, r),
    // Each signature's own entry: approval.signed by its signer with its meaning (one per signer and stage).
    db.selectFrom('audit_log').select(['auditid', 'userid', 'meaning', 'hash']).where('resource_type', '=', 'approval_request').where('resource_id', '=', String(r.approval_requestid))
      .where('action', '=', 'approval.signed').orderBy('auditid').execute(),
  ]);
  // The release an approval published comes last (it is written after the last signature, in its transaction).
  const fits = released && trail.more === 0 && trail.entries.length < AUDIT_SHOWN;
  const audit = fits ? [...trail.entries, released] : trail.entries;
  const moreAudit = trail.more + (released && !fits ? 1 : 0);
  const teamids = stages.flatMap((s) => (s.teamid != null ? [s.teamid] : []));
  const userids = [...new Set([r.userid, ...stages.map((s) => s.userid), ...audit.map((e) => e.userid)].filter((x): x is number => x != null))];
  const [users, teams] = await Promise.all([
    userids.length ? db.selectFrom('users').select(['userid', 'username']).where('userid', 'in', userids).execute() : [],
    teamids.length ? db.selectFrom('teams').select(['teamid', 'name']).where('teamid', 'in', teamids).execute() : [],
  ]);
  const userName = (id: number | null) => (id == null ? 'the system' : users.find((u) => u.userid === id)?.username ?? `user ${id}`);
  const teamName = (id: number) => teams.find((x) => x.teamid === id)?.name ?? `team ${id}`;
  const notes = release ? clip(release.notes) : { text: '', more: 0 };
  const times = [r.init_date, r.end_date ?? 0, ...signatures.map((s) => s.sign_date), ...audit.map((e) => e.time)];
  return {
    approval_requestid: r.approval_requestid,
    date: Math.max(...times),
    title: guide?.title || release?.title || `Guide ${r.guideid}`,
    lines: [
      `Approval request ${r.approval_requestid}: ${r.status}`,
      `Guide ${r.guideid} (${r.langid}), revision ${r.revisionid} signed`,
      release ? `Release ${release.releaseid} (${release.type}${release.version ? `, version ${release.version}` : ''}): ${release.status}` : `Release ${r.releaseid}`,
      ...(notes.text ? [`Release notes: ${notes.text}${notes.more > 0 ? ` ... (${notes.more} more characters)` : ''}`] : []),
      `Approval process: ${process?.name ?? '-'} (process ${r.approval_processid}, revision ${r.process_revisionid})`,
      `Requested by ${userName(r.userid)} at ${when(r.init_date)}`,
      `Ended: ${when(r.end_date)}`,
    ],
    stages: stages.map((s) => {
      const mine = signatures.filter((x) => x.approval_request_stageid === s.approval_request_stageid);
      const shown = mine.slice(0, SIGNATURES_SHOWN);
      return {
        title: s.userid != null ? `signed by ${userName(s.userid)} (user ${s.userid})` : `signed by ${s.num_required} member${s.num_required === 1 ? '' : 's'} of ${teamName(s.teamid!)} (team ${s.teamid})`,
        status: s.status,
        signatures: shown.map((x) => {
          const meaning = signatureMeaning(x.status, s);
          const entry = signed.find((e) => e.userid === x.userid && e.meaning === meaning);
          const n = clip(x.notes);
          return {
            name: x.signer_name, userid: x.userid, time: x.sign_date, meaning, method: x.method, revisionid: x.revisionid, notes: n.text, moreNotes: n.more,
            audit: entry ? { auditid: Number(entry.auditid), hash: entry.hash } : null,
          };
        }),
        moreSignatures: mine.length - shown.length,
      };
    }),
    audit: audit.map((e) => ({ auditid: e.auditid, time: e.time, action: e.action, by: userName(e.userid), hash: e.hash })),
    moreAudit,
  };
}
