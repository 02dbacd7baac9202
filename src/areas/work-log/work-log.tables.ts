import type { Generated } from 'kysely';

/** A user performing a guide. */
export interface WorkLogTable {
  entryid: Generated<number>;
  guideid: number;
  langid: string;
  /** The guide revision performed. */
  revisionid: number;
  /** The user the entry is assigned to; changes when another user assumes it. */
  userid: number;
  /** Who started the entry. */
  userid_created: number | null;
  /** in_progress | paused | suspended | finished | cancelled */
  status: string;
  notes: Generated<string>;
  start_date: number;
  end_date: number | null;
  status_date: number;
  modified_date: number;
  /** Seconds in progress before the current in-progress period. */
  active_seconds: Generated<number>;
  /** Start of the current in-progress period; null unless in progress. */
  active_since: number | null;
}

/** What the performer recorded on one step. */
export interface WorkLogStepTable {
  entryid: number;
  stepid: number;
  checked: Generated<number>;
  value: string | null;
  notes: Generated<string>;
  modified_date: number;
  userid_modified: number | null;
}

export interface WorkLogTables {
  work_log: WorkLogTable;
  work_log_steps: WorkLogStepTable;
}
