// The orphan sweep: deletes stored objects that no row references, once they are older
// than MEDIA_ORPHAN_GRACE_S. Every write stores its file before it commits the row that
// names it, so a process killed between the two (or a failed commit, or cleanup that never
// ran) leaves at most an object nobody references; this is what removes it.
//
// Which keys are in use is the areas' knowledge (`Area.storedFiles`: the media area's
// originals, variants and encodings, and the files a pending `media.purge` still owns; the
// training modules' staged and unpacked packages), asked in batches of listed keys with
// indexed queries, so that memory stays bounded whatever the site's size. A key that no
// rule claims is kept: the sweep deletes only what it can explain. Objects younger than the
// grace are kept without asking (a write in progress commits its row well within it).
//
// It runs as the recurring job `storage.orphan-sweep` (one node at a time: the queue's
// lease) every MEDIA_ORPHAN_GRACE_S / 24 (at least 5 minutes), and on demand with
// `npm run media:sweep` (sweep-cli.ts).
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import { enqueueJob, type JobType } from '../jobs/queue.js';
import { lockForTransaction } from '../db/locks.js';
import { blobStoreFor, NAMESPACES, type BlobStore, type ListedBlob, type Namespace } from './blob-store.js';

/** An area's stored files of one namespace: which keys it makes, and which of them are in use. */
export interface StoredFileRule {
  namespace: Namespace;
  /** Whether the area makes this key (it reads the key back through the functions that build keys). */
  owns(key: string): boolean;
  /**
   * Called once per sweep; answers the check of a batch of keys it owns (at most a few
   * hundred): the ones in use (a row names them, work in progress or a pending job owns
   * them). One query per table and batch, never one per key.
   */
  start(db: Kysely<Database>, now: number): Promise<(keys: readonly string[]) => Promise<Set<string>>>;
}

export interface SweepCounts {
  /** Objects listed. */
  scanned: number;
  /** Kept: younger than the grace, in use, or of a kind no rule claims (`unknown`). */
  kept: number;
  /** Deleted (with `dryRun`: that would be). */
  deleted: number;
  deletedBytes: number;
  /** Kept because no rule claims their key (named in the log). */
  unknown: number;
  /** Leftovers of writes that never finished (the filesystem's temporary files) removed. */
  unfinished: number;
}

export interface SweepOptions {
  graceSeconds: number;
  rules: readonly StoredFileRule[];
  /** Report nothing deleted: count what would be. */
  dryRun?: boolean;
  /** A line of progress (after each namespace, and every few thousand objects). */
  log?: (line: string, counts: SweepCounts) => void;
  /** Called after each batch (the job renews its lease there); may throw to stop. */
  onProgress?: (counts: SweepCounts) => void | Promise<void>;
  /** Stops the sweep between batches (a shutdown). */
  signal?: AbortSignal;
  /** Keys checked per batch (default 500). */
  batchSize?: number;
}

const DELETE_PARALLEL = 8;

/**
 * Lists every object of each namespace's store and deletes the ones no rule says are in
 * use whose last write is older than `clock.now() - graceSeconds`.
 */
export async function sweepOrphanObjects(db: Kysely<Database>, stores: Partial<Record<Namespace, BlobStore>>, clock: Clock, options: SweepOptions): Promise<SweepCounts> {
  const counts: SweepCounts = { scanned: 0, kept: 0, deleted: 0, deletedBytes: 0, unknown: 0, unfinished: 0 };
  const now = clock.now();
  const cutoff = now - options.graceSeconds;
  const batchSize = options.batchSize ?? 500;
  const log = options.log ?? (() => {});
  for (const namespace of NAMESPACES) {
    const store = stores[namespace];
    if (!store) continue;
    const rules = options.rules.filter((r) => r.namespace === namespace);
    const checks = await Promise.all(rules.map((r) => r.start(db, now)));
    let shownAt = counts.scanned;

    const settle = async (batch: ListedBlob[]) => {
      options.signal?.throwIfAborted();
      const inUse = new Set<string>();
      const claimed = new Set<string>();
      for (const [i, rule] of rules.entries()) {
        const mine = batch.filter((o) => rule.owns(o.key)).map((o) => o.key);
        if (!mine.length) continue;
        for (const k of mine) claimed.add(k);
        for (const k of await checks[i](mine)) inUse.add(k);
      }
      const orphans: ListedBlob[] = [];
      for (const o of batch) {
        if (!claimed.has(o.key)) {
          counts.unknown++;
          counts.kept++;
          if (counts.unknown <= 10) log(`${namespace}: kept ${o.key}: no area makes such a key`, counts);
        } else if (inUse.has(o.key)) counts.kept++;
        else orphans.push(o);
      }
      for (let i = 0; i < orphans.length; i += DELETE_PARALLEL) {
        const some = orphans.slice(i, i + DELETE_PARALLEL);
        if (!options.dryRun) await Promise.all(some.map((o) => store.delete(o.key)));
        for (const o of some) {
          counts.deleted++;
          counts.deletedBytes += o.size;
        }
      }
      await options.onProgress?.({ ...counts });
      if (counts.scanned - shownAt >= 5000) {
        shownAt = counts.scanned;
        log(`${namespace}: ${counts.scanned} objects looked at, ${counts.deleted} ${options.dryRun ? 'unreferenced' : 'deleted'}`, counts);
      }
    };

    let batch: ListedBlob[] = [];
    for await (const o of store.list()) {
      counts.scanned++;
      // Written within the grace: kept without asking (its row may not be committed yet).
      if (o.modified >= cutoff) {
        counts.kept++;
        continue;
      }
      batch.push(o);
      if (batch.length >= batchSize) {
        await settle(batch);
        batch = [];
      }
    }
    if (batch.length) await settle(batch);
    options.signal?.throwIfAborted();
    counts.unfinished += await store.removeUnfinished(cutoff, { dryRun: options.dryRun });
    log(`${namespace}: done; ${counts.scanned} objects looked at in all, ${counts.deleted} ${options.dryRun ? 'unreferenced (dry run: none deleted)' : 'deleted'}, ${counts.unfinished} unfinished writes ${options.dryRun ? 'found' : 'removed'}`, counts);
  }
  await options.onProgress?.({ ...counts });
  return counts;
}

/** Every namespace's configured store. */
export const configuredStores = (config: Config): Record<Namespace, BlobStore> =>
  Object.fromEntries(NAMESPACES.map((n) => [n, blobStoreFor(config, n)])) as Record<Namespace, BlobStore>;

// ---------------------------------------------------------------- the recurring job

export const ORPHAN_SWEEP_JOB = 'storage.orphan-sweep';
/** Attempts of one run; the last one schedules the next run before it fails for good. */
const SWEEP_ATTEMPTS = 3;

/** Seconds between runs: a twenty-fourth of the grace (an hour by default), at least five minutes. */
export const orphanSweepInterval = (config: Pick<Config, 'mediaOrphanGraceS'>) => Math.max(300, Math.round(config.mediaOrphanGraceS / 24));

/**
 * Schedules a run at `runAt` unless one is waiting or running already (other than
 * `except`, the run calling it): so there is never more than one, however many nodes
 * start at once. The check and the insert are one transaction, serialized by a lock
 * (PostgreSQL: an advisory lock; SQLite: its single writer). Answers whether it added one.
 */
export async function scheduleOrphanSweep(db: Kysely<Database>, clock: Clock, runAt: number, except?: number): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    await lockForTransaction(trx, `jobs:${ORPHAN_SWEEP_JOB}`);
    let q = trx.selectFrom('jobs').select('jobid').where('type', '=', ORPHAN_SWEEP_JOB).where('status', 'in', ['pending', 'running']);
    if (except !== undefined) q = q.where('jobid', '!=', except);
    if (await q.limit(1).executeTakeFirst()) return false;
    await enqueueJob(trx, clock, ORPHAN_SWEEP_JOB, {}, { runAt, maxAttempts: SWEEP_ATTEMPTS });
    return true;
  });
}

/** The job: one sweep of the configured stores, then the next run scheduled. */
export function orphanSweepJob(config: Config, clock: Clock, rules: readonly StoredFileRule[]): JobType {
  const interval = orphanSweepInterval(config);
  return {
    lane: 'media',
    async run(_payload: unknown, ctx) {
      try {
        const counts = await sweepOrphanObjects(ctx.db, configuredStores(config), ctx.clock, {
          graceSeconds: config.mediaOrphanGraceS, rules, signal: ctx.signal,
          log: (line, c) => ctx.log.info({ sweep: c }, `orphan sweep: ${line}`),
          onProgress: () => ctx.extendLease(),
        });
        ctx.log.info({ sweep: counts }, 'orphan sweep finished');
      } catch (err) {
        // A retry (this same job) stays the one waiting; the last attempt hands over to the next run.
        if (ctx.signal.aborted || ctx.attempt < SWEEP_ATTEMPTS) throw err;
        await scheduleOrphanSweep(ctx.db, ctx.clock, ctx.clock.now() + interval, ctx.jobid);
        throw err;
      }
      await scheduleOrphanSweep(ctx.db, ctx.clock, ctx.clock.now() + interval, ctx.jobid);
    },
    // Its process died during the last attempt: the chain goes on.
    giveUp: async (_payload, { db }) => {
      await scheduleOrphanSweep(db, clock, clock.now() + interval);
    },
  };
}
