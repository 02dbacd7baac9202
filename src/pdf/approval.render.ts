// The approval request PDF's layout (GET /approvals/request/{id}/pdf): what
// areas/approvals/approvals.pdf.ts read in, the PDF's bytes out, in the PDF worker thread.
// Bounded like the work log PDF: every text has its long runs broken before layout, the
// signatures of a stage and the audit entries are listed up to a limit and the rest
// counted, a signature's notes are printed up to NOTES_SHOWN characters.
import { auditSection, headerSection, newDocument, when, type PdfAuditEntry } from './pdf.render.js';

/** The signatures listed per stage; the rest are counted. */
export const SIGNATURES_SHOWN = 100;
/** The characters of a signature's notes printed; the rest are counted (the request's record has them all). */
export const NOTES_SHOWN = 2000;

export interface ApprovalPdfSignature {
  /** The signer's printed name, as they signed. */
  name: string;
  userid: number;
  time: number;
  /** What the signature attests (approvals.records.ts `signatureMeaning`). */
  meaning: string;
  method: string;
  revisionid: number;
  notes: string;
  /** Characters of the notes left out. */
  moreNotes: number;
  /** The signature's audit entry (approval.signed), when there is one. */
  audit: { auditid: number; hash: string } | null;
}

/** What an approval request's PDF shows: every text already in words, times in UNIX seconds. */
export interface ApprovalPdfContent {
  approval_requestid: number;
  /** The PDF's creation date (UNIX seconds): the last change it shows. */
  date: number;
  title: string;
  lines: string[];
  stages: { title: string; status: string; signatures: ApprovalPdfSignature[]; moreSignatures: number }[];
  audit: PdfAuditEntry[];
  moreAudit: number;
}

/** The approval request PDF's bytes. */
export function renderApprovalPdf(c: ApprovalPdfContent): Promise<Buffer> {
  const w = newDocument(`Approval request ${c.approval_requestid}`, c.date);
  const { doc, text, done } = w;
  headerSection(w, c.title, c.lines);
  doc.moveDown();
  doc.font('bold').fontSize(12).text('Stages and signatures');
  c.stages.forEach((s, i) => {
    doc.moveDown(0.5);
    doc.font('bold').fontSize(10);
    text(`Stage ${i + 1}: ${s.title} (${s.status})`);
    doc.font('body');
    if (s.signatures.length === 0 && s.moreSignatures === 0) text('    No signatures.');
    for (const sig of s.signatures) {
      text(`    Signed by ${sig.name} (user ${sig.userid}) at ${when(sig.time)}`);
      text(`    Meaning: ${sig.meaning}`);
      text(`    Revision signed: ${sig.revisionid}; signed with: ${sig.method}`);
      if (sig.notes) text(`    Notes: ${sig.notes}${sig.moreNotes > 0 ? ` ... (${sig.moreNotes} more characters)` : ''}`);
      text(sig.audit ? `    Audit entry #${sig.audit.auditid}, hash ${sig.audit.hash}` : '    No audit entry of this signature was found.');
    }
    if (s.moreSignatures > 0) text(`    ... and ${s.moreSignatures} more signature${s.moreSignatures === 1 ? '' : 's'}, not listed.`);
  });
  auditSection(w, 'Audit trail', c.audit, c.moreAudit, 'No audit entries are recorded for this request.');
  doc.end();
  return done;
}
