import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Config } from '../config.js';
import type { Clock } from '../clock.js';
import type { JobHandler, JobType } from '../jobs/queue.js';

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
}
