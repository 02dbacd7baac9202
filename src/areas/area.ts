import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Config } from '../config.js';
import type { Clock } from '../clock.js';
import type { AuthUser } from '../http/auth.js';
import type { JobHandler, JobType } from '../jobs/queue.js';
import type { BadgeRule } from './users/badges.js';
import type { MediaUsageCheck } from './media/media-usage.js';
import type { StoredFileRule } from '../storage/orphans.js';

/** What the demo seeders share: each adds what it made, the next builds on it. */
export interface DemoContext {
  db: Kysely<Database>;
  config: Config;
  clock: Clock;
  /** The demo accounts' password (printed at first start). */
  password: string;
  users: Record<string, number>;
  teams: Record<string, number>;
  /** Free-form ids later seeders need (guides, categories, images...). */
  ids: Record<string, number>;
  log: (line: string) => void;
}

/**
 * What the guides area asks of approvals, without importing that area: the approvals
 * area provides it (`Area.guideApprovals`), app.ts decorates the app with it
 * (`app.guideApprovals`), and without it guides are released and read as they are.
 */
export interface GuideApprovals {
  /** The process a release of this guide must pass, or null (its category's nearest, else the default of its era). */
  processFor(db: Kysely<Database>, guide: { guideid: number; category: string }): Promise<number | null>;
  /** Opens the request deciding a pending release, inside the release's transaction; answers its id. */
  openRequest(trx: Kysely<Database>, config: Config, clock: Clock, release: { releaseid: number; guideid: number; langid: string; revisionid: number }, approval_processid: number, userid: number, actor?: AuthUser): Promise<number>;
  /**
   * The revision that readers who may not edit the guide see: undefined when no process
   * applies (the current one), null when none was approved yet.
   */
  readerRevision(db: Kysely<Database>, guide: { guideid: number; langid: string; category: string; reader_revisionid: number | null; reader_view: number; approvals?: number }): Promise<number | null | undefined>;
}

export const noApprovals: GuideApprovals = {
  processFor: async () => null,
  openRequest: async () => {
    throw new Error('no approvals area');
  },
  readerRevision: async () => undefined,
};

/** One stage of one user, as the course assignee user view asks the assessments area about it. */
export interface StageAssessmentQuery {
  userid: number;
  course_stageid: number;
  doctype: string;
  docid: number;
  stage_assessmentid: number | null;
  assessmenttype: 'signoff' | 'quiz' | null;
  teamid_signer: number | null;
  quiz_passing_score: number | null;
  attempts_limit: number | null;
  skills_points_possible: number | null;
}

/** The assessment fields of a stage in GET /course_assignees/course/{wikiid}/user/{userid} (null until filled). */
export interface StageAssessmentFieldValues {
  attached_quiz: Record<string, unknown> | null;
  quiz_session: Record<string, unknown> | null;
  quiz_attempts_remaining: number | null;
  signoff: Record<string, unknown> | null;
}

/**
 * What the courses area asks of assessments, without importing that area: the fields of a
 * page of stages, in one batch (a fixed number of queries whatever the page holds). The
 * assessments area provides it (`Area.stageAssessmentFields`), app.ts decorates the app
 * with it (`app.stageAssessmentFields`); without it every field is null.
 */
export type StageAssessmentFields = (db: Kysely<Database>, config: Config, stages: StageAssessmentQuery[]) => Promise<Map<number, StageAssessmentFieldValues>>;

export const NO_STAGE_ASSESSMENT_FIELDS: StageAssessmentFieldValues = { attached_quiz: null, quiz_session: null, quiz_attempts_remaining: null, signoff: null };

/** The default: every stage's assessment fields are null. */
export const noStageAssessmentFields: StageAssessmentFields = async (_db, _config, stages) =>
  new Map(stages.map((s) => [s.course_stageid, { ...NO_STAGE_ASSESSMENT_FIELDS }]));

export interface Area {
  name: string;
  /** A Fastify plugin; registered under /api/2.0. */
  routes: (app: FastifyInstance) => Promise<void>;
  /** A Fastify plugin registered at the root, outside /api/2.0 (served files). */
  publicRoutes?: (app: FastifyInstance) => Promise<void>;
  /** Loads the area's demo content; runs once, in the order of `areas`. */
  seedDemo?: (ctx: DemoContext) => Promise<void>;
  /** Background job handlers by type (a bare handler runs in the `other` lane); `clock` is the app's. */
  jobs?: (config: Config, clock: Clock) => Record<string, JobHandler | JobType>;
  /** The approvals area's answers to the guides area (see GuideApprovals). */
  guideApprovals?: GuideApprovals;
  /**
   * Badge rules this area's content earns (guides: first guide, ten guides). app.ts joins
   * every area's rules into `app.badges`, which the users area reads; nothing registers
   * at import time.
   */
  badges?: BadgeRule[];
  /**
   * Checks of where this area's content uses a media item (a library item in use cannot be
   * deleted). app.ts joins them into `app.mediaUsages`, which the media area asks.
   */
  mediaUsages?: MediaUsageCheck[];
  /** The assessments area's fields of course stages (see StageAssessmentFields). */
  stageAssessmentFields?: StageAssessmentFields;
  /** Which stored files of this area are in use: the orphan sweep (storage/orphans.ts) deletes the others. */
  storedFiles?: StoredFileRule[];
}
