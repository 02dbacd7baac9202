// Tables that belong to no single area: site state, durable jobs, and the minimal
// images table (the media area extends it; guides, users and teams refer to it).
import type { Generated } from 'kysely';

export interface SiteStateTable {
  key: string;
  value: string;
}

export interface JobTable {
  jobid: Generated<number>;
  type: string;
  /** JSON */
  payload: string;
  /** pending | running | done | failed */
  status: string;
  run_at: number;
  attempts: number;
  max_attempts: number;
  locked_until: number | null;
  last_error: string | null;
  created_date: number;
  finished_date: number | null;
}

export interface ImageTable {
  imageid: Generated<number>;
  guid: string;
  userid: number | null;
  width: number;
  height: number;
  mime: string;
  created_date: number;
}

/** Minimal; the wikis area extends it (its own tables file declares the rest). */
export interface WikiTable {
  wikiid: Generated<number>;
  namespace: string;
  title: string;
}

export interface TagTable {
  tagid: Generated<number>;
  tag: string;
}

export interface DocTagTable {
  tagid: number;
  /** guide | wiki */
  doctype: string;
  docid: number;
}

/** Minimal; the media area extends it. */
export interface VideoTable {
  videoid: Generated<number>;
  guid: string;
  userid: number | null;
  filename: string;
  created_date: number;
}

/** A rate limit's count for one key (http/rate-limits.ts): attempts in the window from `window_start` to `expires_at`. */
export interface RateLimitCountTable {
  key: string;
  window_start: number;
  count: number;
  expires_at: number;
}

/** An account's failed passwords in a row (http/login-attempts.ts). */
export interface RateLimitAccountTable {
  account: string;
  failures: number;
  last_failed: number;
  /** An attempt let through during a delay holds the next ones back until then (ms). */
  held_until_ms: number;
}

export interface FoundationTables {
  site_state: SiteStateTable;
  rate_limit_counts: RateLimitCountTable;
  rate_limit_accounts: RateLimitAccountTable;
  jobs: JobTable;
  images: ImageTable;
  wikis: WikiTable;
  tags: TagTable;
  doc_tags: DocTagTable;
  videos: VideoTable;
}
