// GET /approvals/request/{id}/pdf (issue 63, item 5): the approval request as a PDF, with the
// guide, the revision signed, each stage and signature (printed name, time, meaning) and the
// audit entries' ids and hashes; the same request gives the same bytes (also when rendered
// again, not only when kept); bounded (long notes cut with a count, audit entries listed up
// to a limit with the rest counted); read by whoever may read the request.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeTeam, makeUser, type TestUser } from '../../helpers/factories.js';
import { makePublishedGuide } from '../../helpers/factories/guides.js';
import { pdfText } from '../../helpers/pdf-text.js';
import { makeCategoryAt, makeProcess } from './helpers.js';
import { queueAuditEntry } from '../../../src/db/audit-append.js';
import { PdfRenderer } from '../../../src/pdf/pdf.renderer.js';
import { AUDIT_SHOWN } from '../../../src/pdf/pdf.render.js';
import { approvalPdfContent } from '../../../src/areas/approvals/approvals.pdf.js';
import { findRequest } from '../../../src/areas/approvals/approvals.queries.js';

let admin: TestUser, author: TestUser, first: TestUser, member: TestUser, lead: TestUser, outsider: TestUser;
let team: { teamid: number; name: string };

const t = appForFile({}, async () => {
  [admin, author, first, member, lead, outsider] = await Promise.all([makeAdmin(t), makeAuthor(t), makeUser(t), makeUser(t), makeUser(t), makeUser(t)]);
  team = await makeTeam(t, lead, [{ user: member }]);
});

/** The PDF's text without the line breaks and the zero-width spaces long runs are broken at. */
const flat = (pdf: Buffer) => pdfText(pdf).replace(/[\s\u200B]/g, '');
const squeeze = (s: string) => s.replace(/\s/g, '');
const when = (s: number) => `${new Date(s * 1000).toISOString().replace('T', ' ').slice(0, 19)} UTC`;
const pdfOf = (id: number, token?: string) => t.get(`/approvals/request/${id}/pdf`, token ? { token } : {});

/** A guide under a two-stage process (a user, then one member of a team); answers the guide and the open request's id. */
async function openRequest(title: string) {
  const p = await makeProcess(t, admin.token, [{ userid: first.userid }, { teamid: team.teamid, num_required: 1 }]);
  const cat = await makeCategoryAt(t);
  expect((await t.put(`/approvals/${cat.wikiid}/${p.approval_processid}`, { token: admin.token })).statusCode).toBe(200);
  const g = await makePublishedGuide(t, author, 0, { category: cat.title, title });
  const release = await t.post('/guides/releases', { token: author.token, body: { guideid: g.guideid, type: 'major', notes: 'For the audit' } });
  expect(release.statusCode, release.body).toBe(201);
  return { g, id: release.json().approval_requestid as number, process: p };
}

const sign = async (u: TestUser, id: number, status: 'approve' | 'reject', notes = '') => {
  const res = await t.post(`/approvals/request/sign/${id}`, { token: u.token, body: { status, password: u.password, notes } });
  expect(res.statusCode, res.body).toBe(200);
};

describe('the approval request PDF', () => {
  it('shows the guide, the revision signed, each stage and signature with name, time and meaning, and the audit entries\' ids and hashes', async () => {
    const { g, id, process } = await openRequest('Lockout procedure');
    t.clock.advance(120);
    await sign(first, id, 'approve', 'Torque values checked');
    t.clock.advance(120);
    await sign(member, id, 'approve');

    const res = await pdfOf(id, author.token);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    expect(res.headers['content-type']).toBe('application/pdf');
    expect(res.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    const text = flat(res.rawPayload);
    const record = (await t.get(`/approvals/request/${id}`, { token: admin.token })).json();
    expect(record.status).toBe('approved');
    for (const line of [
      'Lockout procedure',
      `Approval request ${id}: approved`,
      `Guide ${g.guideid} (en), revision ${g.revisionid} signed`,
      `Approval process: ${process.name}`,
      `Requested by ${author.username} at ${when(record.init_date)}`,
      `Stage 1: signed by ${first.username} (user ${first.userid}) (complete)`,
      `Stage 2: signed by 1 member of ${team.name} (team ${team.teamid}) (complete)`,
      'Notes: Torque values checked',
    ]) expect(text, line).toContain(squeeze(line));
    // Each signature: the printed name, the time, the meaning, and its audit entry's id and hash.
    const signed = await t.db.selectFrom('audit_log').selectAll().where('resource_type', '=', 'approval_request').where('resource_id', '=', String(id))
      .where('action', '=', 'approval.signed').orderBy('auditid').execute();
    expect(signed).toHaveLength(2);
    record.stages.forEach((stage: { signatures: Array<{ signer_name: string; sign_date: number; meaning: string }> }, i: number) => {
      const sig = stage.signatures[0];
      expect(sig.meaning).toBe(signed[i].meaning);
      expect(text).toContain(squeeze(`Signed by ${sig.signer_name} (user ${signed[i].userid}) at ${when(sig.sign_date)}`));
      expect(text).toContain(squeeze(`Meaning: ${sig.meaning}`));
      expect(text).toContain(squeeze(`Audit entry #${signed[i].auditid}, hash ${signed[i].hash}`));
    });
    // The audit trail: the request's entries and the release the approval published, with ids and hashes.
    const requested = await t.db.selectFrom('audit_log').selectAll().where('resource_type', '=', 'approval_request').where('resource_id', '=', String(id)).orderBy('auditid').execute();
    const released = await t.db.selectFrom('audit_log').selectAll().where('action', '=', 'approval.released').where('resource_id', '=', String(g.guideid)).execute();
    expect(requested.map((e) => e.action)).toEqual(['approval.requested', 'approval.signed', 'approval.signed']);
    expect(released).toHaveLength(1);
    for (const e of [...requested, ...released]) expect(text).toContain(squeeze(`audit #${e.auditid} ${when(e.time)} ${e.action} by`));
    for (const e of [...requested, ...released]) expect(text).toContain(`hash${e.hash}`);
  }, 60_000);

  it('the same request gives the same bytes: asked twice, and rendered again by another renderer later', async () => {
    const { id } = await openRequest('Same bytes');
    await sign(first, id, 'approve', 'ok');
    const a = await pdfOf(id, admin.token);
    t.clock.advance(3600);
    const b = await pdfOf(id, author.token);
    expect(a.statusCode).toBe(200);
    expect(Buffer.compare(a.rawPayload, b.rawPayload)).toBe(0);
    // Not only the kept PDF: another renderer (another worker), an hour later, makes the same bytes.
    const renderer = new PdfRenderer({ pdfWarmStart: false, pdfQueueSize: 2, pdfTimeoutMs: 60_000, pdfKeptMb: 1 });
    try {
      const again = await renderer.approvalRequestPdf(await approvalPdfContent(t.db, (await findRequest(t.db, id))!));
      expect(Buffer.compare(a.rawPayload, again)).toBe(0);
    } finally {
      await renderer.close();
    }
    // A new signature changes what it shows: a new PDF.
    await sign(member, id, 'reject', 'Wrong torque');
    const c = await pdfOf(id, admin.token);
    expect(Buffer.compare(a.rawPayload, c.rawPayload)).not.toBe(0);
    expect(flat(c.rawPayload)).toContain(squeeze(`Meaning: rejected: stage 2 (team ${team.teamid})`));
  }, 60_000);

  it('is bounded: long notes are cut with a count, audit entries past the limit are counted', async () => {
    const { id } = await openRequest('Bounded');
    const word = Array.from({ length: 1000 }, (_, i) => `n${String(i).padStart(3, '0')}xyzab`).join('');
    await sign(first, id, 'approve', word);
    // More entries on the request than the PDF lists (written as the appender writes them).
    await t.db.transaction().execute(async (trx) => {
      for (let i = 0; i < AUDIT_SHOWN + 5; i++) {
        await queueAuditEntry(trx, {
          time: t.clock.now(), userid: admin.userid, impersonator_userid: null, action: 'approval.requested', resource_type: 'approval_request', resource_id: String(id),
          langid: null, revisionid_before: null, revisionid_after: null, meaning: null, reason: null, changes: null, request_id: null, client_ip: null,
        });
      }
    });
    const res = await pdfOf(id, admin.token);
    expect(res.statusCode, res.body.slice(0, 300)).toBe(200);
    const text = flat(res.rawPayload);
    expect(word).toHaveLength(9000);
    expect(text).toContain(`Notes:${word.slice(0, 2000)}...(7000morecharacters)`);
    expect(text).not.toContain(word.slice(0, 2001));
    // 1 requested + 1 signed + AUDIT_SHOWN + 5 queued: AUDIT_SHOWN listed, 7 counted.
    expect(text.match(/audit#\d+/g)).toHaveLength(AUDIT_SHOWN);
    expect(text).toContain(squeeze('... and 7 more audit entries, not listed'));
  }, 60_000);

  it('is read by whoever may read the request: 401 without a token, 403 for others, 404 for none', async () => {
    const { id } = await openRequest('Access');
    expect((await pdfOf(id)).statusCode).toBe(401);
    expect((await pdfOf(id, outsider.token)).statusCode).toBe(403);
    expect((await pdfOf(id, first.token)).statusCode).toBe(200);
    expect((await pdfOf(id, member.token)).statusCode).toBe(200);
    expect((await pdfOf(999_999, admin.token)).statusCode).toBe(404);
  }, 60_000);
});
