// What a user's media may take: a storage quota (originals, image size variants, video
// encodings and posters all count) and an hourly upload rate. Admins have their own
// quota (MEDIA_ADMIN_QUOTA_BYTES, 0: none) and no rate. Every upload and image edit is
// admitted here first: 429 (with Retry-After) when the hour's uploads are spent, 413 when
// the quota is full, else the bytes it may still write.
import { sql, type Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import type { Clock } from '../../clock.js';
import { isAdmin, type AuthUser } from '../../http/auth.js';
import { HttpError } from '../../http/errors.js';
import { lockForTransaction } from '../../db/locks.js';

const HOUR = 3600;

const sumOf = (column: string) => sql<number>`cast(coalesce(sum(${sql.ref(column)}), 0) as bigint)`.as('bytes');

/** Bytes the user's media take: originals, image variants, video encodings (posters are images). */
export async function storageUsed(db: Kysely<Database>, userid: number): Promise<number> {
  const [images, variants, videos, encodings, documents] = await Promise.all([
    db.selectFrom('images').select(sumOf('size')).where('userid', '=', userid).executeTakeFirstOrThrow(),
    db.selectFrom('images').select(sumOf('variant_bytes')).where('userid', '=', userid).executeTakeFirstOrThrow(),
    db.selectFrom('videos').select(sumOf('size')).where('userid', '=', userid).executeTakeFirstOrThrow(),
    db.selectFrom('video_encodings as e').innerJoin('videos as v', 'v.videoid', 'e.videoid').select(sumOf('e.size')).where('v.userid', '=', userid).executeTakeFirstOrThrow(),
    db.selectFrom('documents').select(sumOf('size')).where('userid', '=', userid).executeTakeFirstOrThrow(),
  ]);
  return [images, variants, videos, encodings, documents].reduce((n, r) => n + Number(r.bytes), 0);
}

/** The user's quota in bytes; null: no limit. */
export function quotaOf(config: Config, user: AuthUser): number | null {
  const quota = isAdmin(user) ? config.mediaAdminQuotaBytes : config.mediaQuotaBytes;
  return quota > 0 ? quota : null;
}

/** Where the caller stands: their quota and what it holds, the hourly rate and what it has counted. */
export interface UploadStanding {
  quotaBytes: number | null;
  usedBytes: number;
  remainingBytes: number | null;
  uploadsPerHour: number | null;
  uploadsLastHour: number;
}

export async function uploadStanding(s: { db: Kysely<Database>; config: Config; clock: Clock }, user: AuthUser): Promise<UploadStanding> {
  const quota = quotaOf(s.config, user);
  const perHour = isAdmin(user) ? 0 : s.config.mediaUploadsPerHour;
  const [used, recent] = await Promise.all([
    storageUsed(s.db, user.userid),
    s.db.selectFrom('media_uploads').select((eb) => eb.fn.countAll<number>().as('n'))
      .where('userid', '=', user.userid).where('created_date', '>', s.clock.now() - HOUR).executeTakeFirstOrThrow(),
  ]);
  return {
    quotaBytes: quota, usedBytes: used, remainingBytes: quota === null ? null : Math.max(0, quota - used),
    uploadsPerHour: perHour > 0 ? perHour : null, uploadsLastHour: Number(recent.n),
  };
}

export function quotaExceeded(quota: number, used: number): HttpError {
  return new HttpError(413, 'quota_exceeded', `Your media take ${used} of your ${quota} bytes of storage; this upload would pass that quota. Delete items you no longer need to free space.`);
}

/** What the quota leaves for one upload: `bytes` of `quota`, `used` already taken. */
export interface QuotaRoom {
  bytes: number;
  quota: number;
  used: number;
}

/** An admitted upload: its room under the quota, and how to give back its place in the rate. */
export interface Admission {
  room: QuotaRoom | null;
  /** For a refused upload: it stored nothing, so it leaves no trace and does not count. */
  release(): Promise<void>;
}

/**
 * Admits one upload (or image edit) of `user`: counts it against the hourly rate (429
 * when spent) and answers the room it has under the quota (413 when none is left; null
 * without a quota). A refused upload calls `release()`, so that a refusal stores nothing. The count and the check are one transaction, locked
 * per user, so simultaneous uploads cannot pass the rate together.
 */
export async function admitUpload(s: { db: Kysely<Database>; config: Config; clock: Clock }, user: AuthUser): Promise<Admission> {
  const { db, config, clock } = s;
  const now = clock.now();
  const perHour = isAdmin(user) ? 0 : config.mediaUploadsPerHour;
  let uploadid: number | null = null;
  if (perHour > 0) {
    uploadid = await db.transaction().execute(async (trx) => {
      await lockForTransaction(trx, `media-uploads:${user.userid}`);
      await trx.deleteFrom('media_uploads').where('userid', '=', user.userid).where('created_date', '<=', now - HOUR).execute();
      const recent = await trx.selectFrom('media_uploads').select(['created_date']).where('userid', '=', user.userid)
        .orderBy('created_date').limit(perHour).execute();
      if (recent.length >= perHour) {
        const retryAfter = Math.max(1, recent[0].created_date + HOUR - now);
        throw new HttpError(429, 'rate_limited', `You may upload ${perHour} files an hour; try again in ${retryAfter} seconds.`, undefined, undefined, { 'retry-after': String(retryAfter) });
      }
      return (await trx.insertInto('media_uploads').values({ userid: user.userid, created_date: now }).returning('uploadid').executeTakeFirstOrThrow()).uploadid;
    });
  }
  const release = async () => {
    if (uploadid !== null) await db.deleteFrom('media_uploads').where('uploadid', '=', uploadid).execute();
  };
  const quota = quotaOf(config, user);
  if (quota === null) return { room: null, release };
  const used = await storageUsed(db, user.userid);
  if (used >= quota) {
    await release();
    throw quotaExceeded(quota, used);
  }
  return { room: { bytes: quota - used, quota, used }, release };
}
