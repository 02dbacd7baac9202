import type { Generated } from 'kysely';

/** A glossary entry: a term in its source language. */
export interface GlossaryEntryTable {
  entryid: Generated<number>;
  source_langid: string;
  term: string;
  /** lower(term): unique per source language. */
  term_lower: string;
  notes: Generated<string>;
  created_date: number;
  modified_date: number;
  userid_modified: number | null;
}

/** One translation of an entry's term: at most one per language. */
export interface GlossaryTermTable {
  entryid: number;
  langid: string;
  term: string;
}

export interface GlossaryTables {
  translation_glossary: GlossaryEntryTable;
  translation_glossary_terms: GlossaryTermTable;
}
