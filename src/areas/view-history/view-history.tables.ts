import type { Generated } from 'kysely';

export interface ViewHistoryTable {
  viewid: Generated<number>;
  userid: number;
  /** guide | wiki */
  doc_type: string;
  docid: number;
  langid: Generated<string>;
  date: number;
}

export interface ViewHistoryTables {
  view_history: ViewHistoryTable;
}
