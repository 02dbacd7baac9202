// Tables of the course stage sign-offs area (migration 2026_11_25_0220_signoffs).
import type { Generated } from 'kysely';

export interface SignoffRequestTable {
  signoff_requestid: Generated<number>;
  stage_assessmentid: number;
  course_stageid: number;
  wikiid: number;
  doctype: string;
  docid: number;
  doc_revisionid: number | null;
  teamid_signer: number | null;
  /** The trainee. */
  userid_requestor: number;
  /** The trainer who responded (or the one asked). */
  userid_requestee: number | null;
  work_log_entryid: number | null;
  is_cancelled: Generated<number>;
  cancelled_at: number | null;
  /** pass | fail */
  response_value: string | null;
  response_feedback: string | null;
  /** direct | over_the_shoulder */
  response_type: string | null;
  response_acknowledged: Generated<number>;
  created_at: number;
  completed_at: number | null;
  acknowledged_at: number | null;
  /** The responding trainer's display name when they responded (migration 2026_12_04_1800_signer_names). */
  signer_name: Generated<string | null>;
  /** 1 until cancelled or acknowledged; null after (one live request per trainee and stage). */
  open: number | null;
}

export interface SignoffTokenTable {
  token_hash: string;
  signoff_requestid: number;
  userid: number;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

export interface SignoffsTables {
  signoff_requests: SignoffRequestTable;
  signoff_tokens: SignoffTokenTable;
}
