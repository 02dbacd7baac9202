// Tables of the quizzes area (migration 2026_11_25_0200_quizzes).
import type { Generated } from 'kysely';

export interface QuizTable {
  quizid: Generated<number>;
  /** The newest quiz_revisions row. */
  quiz_revisionid: Generated<number>;
  title: string;
  category: Generated<string>;
  enabled: Generated<number>;
  deleted: Generated<number>;
  userid_created: number | null;
  created_date: number;
  /** Date of the current revision. */
  released_date: number;
  /** Submitted sessions, not cancelled. */
  sessions_submitted: Generated<number>;
}

export interface QuizRevisionTable {
  quiz_revisionid: Generated<number>;
  quizid: number;
  title: string;
  description: Generated<string>;
  passing_score: number;
  /** SurveyJS JSON text. */
  quiz_json: string;
  non_media_count: number;
  modified_by: number | null;
  date: number;
}

export interface QuizAttachmentTable {
  /** guide | wiki */
  doctype: string;
  docid: number;
  quizid: number;
  userid: number | null;
  date: number;
}

export interface QuizSessionTable {
  quiz_sessionid: Generated<number>;
  userid: number;
  quizid: number;
  quiz_revisionid: number;
  doctype: string;
  docid: number;
  langid: string;
  doc_revisionid: number;
  /** The answers, SurveyJS data as JSON text. */
  response_json: Generated<string>;
  init_date: number;
  end_date: number | null;
  /** Percentage 0 to 100, set on submit. */
  score: number | null;
  passed: number | null;
  cancelled: Generated<number>;
  cancelled_by: number | null;
  /** 1: cancelled by an Admin's override on their own (submitted) session (shared/oversight.ts). */
  self_override: Generated<number>;
  last_modified: number;
  /** 1 while in progress; null once submitted or cancelled (one open session per user, quiz and document). */
  open: number | null;
}

export interface QuizzesTables {
  quizzes: QuizTable;
  quiz_revisions: QuizRevisionTable;
  quiz_attachments: QuizAttachmentTable;
  quiz_sessions: QuizSessionTable;
}
