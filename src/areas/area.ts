import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Config } from '../config.js';
import type { Clock } from '../clock.js';
import type { JobHandler, JobType } from '../jobs/queue.js';
import type { BadgeRule } from './users/badges.js';
import type { MediaUsageCheck } from './media/media-usage.js';

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
}
