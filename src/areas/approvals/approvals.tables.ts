// Tables of the approvals area (migration 2026_11_24_1000_approvals), and the columns it
// adds to guide releases and guides.
import type { Generated } from 'kysely';

declare module '../guides/guides.tables.js' {
  interface GuideReleaseTable {
    /** The request that decides a release made under a process (status pending, then released or rejected). */
    approval_requestid: number | null;
  }
  interface GuideTable {
    /** While a process applies: the revision readers who may not edit see (null: the newest approved release). */
    reader_revisionid: number | null;
    /** 1 while a process applies: readers see `reader_revisionid` (areas/shared/guide-reader.ts; migration 2026_12_04_1000). */
    reader_view: Generated<number>;
  }
}

export interface ApprovalProcessTable {
  approval_processid: Generated<number>;
  name: string;
  name_lower: string;
  allow_repeated_signatures: number;
  /** enabled */
  status: Generated<string>;
  /** 0/1, or null for the site setting. */
  webhooks_enabled: number | null;
  revisionid: number;
  created_date: number;
  modified_date: number;
}

export interface ApprovalProcessRevisionTable {
  revisionid: Generated<number>;
  approval_processid: number;
  userid: number | null;
  date: number;
  /** JSON ProcessSnapshot. */
  snapshot: string;
}

export interface ApprovalProcessStageTable {
  approval_process_stageid: Generated<number>;
  approval_processid: number;
  orderby: number;
  userid: number | null;
  teamid: number | null;
  num_required: number;
  /** 0 once a PATCH replaced the stages (requests that started with it still name it). */
  active: Generated<number>;
}

export interface ApprovalCategoryProcessTable {
  wikiid: number;
  approval_processid: number;
  userid: number | null;
  date: number;
}

export interface ApprovalDefaultTable {
  defaultid: Generated<number>;
  /** The default applies to guides whose guideid is at least this (created after it was set). */
  from_guideid: number;
  approval_processid: number | null;
  date: number;
}

export interface ApprovalRequestTable {
  approval_requestid: Generated<number>;
  approval_processid: number;
  releaseid: number;
  guideid: number;
  langid: string;
  revisionid: number;
  process_revisionid: number;
  allow_repeated_signatures: number;
  userid: number | null;
  /** pending | approved | rejected | cancelled */
  status: string;
  current_stage: number;
  sign_count: Generated<number>;
  init_date: number;
  end_date: number | null;
}

export interface ApprovalRequestStageTable {
  approval_request_stageid: Generated<number>;
  approval_requestid: number;
  approval_process_stageid: number;
  orderby: number;
  userid: number | null;
  teamid: number | null;
  num_required: number;
  /** waiting | pending | complete | rejected | cancelled */
  status: string;
  end_date: number | null;
}

export interface ApprovalSignatureTable {
  approval_request_stage_signatureid: Generated<number>;
  approval_requestid: number;
  approval_request_stageid: number;
  userid: number;
  /** approve | reject */
  status: string;
  notes: string;
  revisionid: number;
  /** password | token */
  method: string;
  sign_date: number;
  /** The signer's display name when they signed (migration 2026_12_04_1800_signer_names). */
  signer_name: Generated<string>;
}

export interface ApprovalSignTokenTable {
  token_hash: string;
  approval_requestid: number;
  approval_request_stageid: number;
  userid: number;
  created_date: number;
  expires_date: number;
  used_date: number | null;
}

export interface ApprovalsTables {
  approval_processes: ApprovalProcessTable;
  approval_process_revisions: ApprovalProcessRevisionTable;
  approval_process_stages: ApprovalProcessStageTable;
  approval_category_processes: ApprovalCategoryProcessTable;
  approval_defaults: ApprovalDefaultTable;
  approval_requests: ApprovalRequestTable;
  approval_request_stages: ApprovalRequestStageTable;
  approval_signatures: ApprovalSignatureTable;
  approval_sign_tokens: ApprovalSignTokenTable;
}
