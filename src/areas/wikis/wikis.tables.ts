// Tables of the wikis area. The minimal `wikis` table is declared in
// db/foundation.tables.ts; its columns added by this area's migration are merged
// into that interface here.
import type { Generated } from 'kysely';

declare module '../../db/foundation.tables.js' {
  interface WikiTable {
    /** The source language; translations live in wiki_translations. */
    langid: Generated<string>;
    /** '' when the wiki has none (the title is shown). */
    display_title: Generated<string>;
    summary: Generated<string>;
    contents_raw: Generated<string>;
    /** Plain-text start of contents_raw, computed when it is written (withExcerpt). */
    excerpt: Generated<string>;
    /** CATEGORY: how to identify the device, wiki syntax. */
    identification_raw: Generated<string>;
    imageid: number | null;
    table_of_contents: Generated<number>;
    /** Current revision of the source language; 0 for a bare row another area inserted. */
    revisionid: Generated<number>;
    /** CATEGORY: the parent's wikiid. */
    parentid: number | null;
    stub: Generated<number>;
    /** ITEM: part | tool. */
    item_type: string | null;
    /** ITEM: JSON array of suppliers. */
    suppliers: Generated<string>;
    userid: number | null;
    created_date: Generated<number>;
    modified_date: Generated<number>;
    /** Bumped by triggers when anything its full record shows changes (migration 2026_11_25_0600; wikis.cache.ts). */
    cache_stamp: Generated<number>;
  }
}

export interface WikiTranslationTable {
  wikiid: number;
  langid: string;
  display_title: string;
  summary: string;
  contents_raw: string;
  /** Plain-text start of contents_raw, computed when it is written (withExcerpt). */
  excerpt: Generated<string>;
  identification_raw: string;
  revisionid: number;
  userid: number | null;
  created_date: number;
  modified_date: number;
}

export interface WikiRevisionTable {
  revisionid: Generated<number>;
  wikiid: number;
  langid: string;
  display_title: string;
  summary: string;
  contents_raw: string;
  identification_raw: string;
  /** JSON of the language-independent fields at that revision (source language only). */
  fields: string;
  /** create | edit | revert | translate | parent */
  action: string;
  userid: number | null;
  date: number;
}

export interface WikiReleaseTable {
  releaseid: Generated<number>;
  wikiid: number;
  langid: string;
  revisionid: number;
  userid: number | null;
  /** released | removed */
  status: string;
  title: string;
  notes: string;
  /** major | minor */
  type: string;
  version: string | null;
  init_date: number;
  release_date: number | null;
}

export interface TranslationCacheTable {
  source_lang: string;
  target_lang: string;
  source_text: string;
  translated_text: string;
  created_date: number;
}

/** A wiki's stored record in one language (wikis.cache.ts): the part the same for every caller. */
export interface WikiRecordTable {
  wikiid: number;
  langid: string;
  revisionid: number;
  cache_stamp: number;
  stamps: string;
  built_at: number;
  built_by: string;
  body: Buffer;
  /** The answer's ETag and the JSON's length (migration 2026_11_26_1300); null when stored before them. */
  etag: string | null;
  size: number | null;
}

export interface WikisTables {
  wiki_records: WikiRecordTable;
  wiki_translations: WikiTranslationTable;
  wiki_revisions: WikiRevisionTable;
  wiki_releases: WikiReleaseTable;
  translation_cache: TranslationCacheTable;
}
