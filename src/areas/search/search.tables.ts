import type { Generated } from 'kysely';

/** Kept by the database itself (triggers; see src/db/search.ts): never written by an area. */
export interface SearchDocTable {
  id: Generated<number>;
  kind: string;
  docid: number;
  langid: string;
  namespace: string;
  title: string;
  body: string;
  visible: number;
  target_type: string | null;
  target_id: number | null;
  target_langid: string | null;
}

export interface SearchTables {
  search_docs: SearchDocTable;
}
