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
  /** started | paused | suspended | complete | cancelled */
  status: string;
  notes: Generated<string>;
  /** The client's work order this entry belongs to (free text). */
  workorderid: string | null;
  start_date: number;
  end_date: number | null;
  status_date: number;
  modified_date: number;
  /** Seconds started before the current started period. */
  active_seconds: Generated<number>;
  /** Start of the current started period; null unless started. */
  active_since: number | null;
}

/** The value of one form field of the revision performed, with who entered it. */
export interface WorkLogValueTable {
  entryid: number;
  field_revisionid: number;
  stepid: number;
  /** Always a string: numbers as written, a checkbox "1" or "0". */
  value: string;
  userid: number | null;
  modified_date: number;
}

/** A stretch a performer spent on the entry: opened by step data or resume, closed by the next step data or a pause. */
export interface WorkLogTimingTable {
  timingid: Generated<number>;
  entryid: number;
  /** The step whose data closed it; null while open or when closed otherwise. */
  stepid: number | null;
  userid: number | null;
  start_date: number;
  end_date: number | null;
}

export interface WorkLogTables {
  work_log: WorkLogTable;
  work_log_values: WorkLogValueTable;
  work_log_timings: WorkLogTimingTable;
}
