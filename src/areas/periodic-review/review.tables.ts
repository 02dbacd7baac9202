// Tables of the periodic review area (migration 2026_11_24_1300_periodic_review).
import type { Generated } from 'kysely';

declare module '../guides/guides.tables.js' {
  interface GuideReleaseTable {
    /** 1 when released with "I reviewed this": it counts as a periodic review once released. */
    reviewed: Generated<number>;
  }
}

export interface ReviewScheduleTable {
  prsid: Generated<number>;
  name: string;
  /** yearly (on month/day) | interval (every interval_days) */
  recurrence: string;
  month: number | null;
  day: number | null;
  interval_days: number | null;
  /** Days to complete a review once it is due; overdue after. */
  window_days: number;
  userid_created: number | null;
  created_date: number;
}

export interface ReviewScheduleReviewerTable {
  prsid: number;
  /** user | team */
  kind: string;
  memberid: number;
}

export interface ReviewDocumentTable {
  prdid: Generated<number>;
  prsid: number;
  /** guide | wiki */
  doctype: string;
  docid: number;
  userid_added: number | null;
  added_date: number;
  last_reviewed_date: number | null;
  /** Stored, recomputed from the schedule and the dates above whenever they change (review.due.ts). */
  due_date: number;
  overdue_date: number;
  /** none | due | overdue: the last reminder sent for the current due date. */
  notice: Generated<string>;
  next_notice_date: number | null;
}

export interface ReviewTable {
  reviewid: Generated<number>;
  doctype: string;
  docid: number;
  prsid: number | null;
  userid: number | null;
  /** still_valid | change_request | reviewed_release */
  kind: string;
  notes: Generated<string>;
  date: number;
  releaseid: number | null;
  due_date: number | null;
  resolved_date: number | null;
  resolved_reviewid: number | null;
}

export interface ReviewTables {
  review_schedules: ReviewScheduleTable;
  review_schedule_reviewers: ReviewScheduleReviewerTable;
  review_documents: ReviewDocumentTable;
  review_reviews: ReviewTable;
}
