// Releases: a kept revision of a guide released as a major or minor version, and the
// release records (users loaded in one batch for a whole page).
import type { Selectable } from 'kysely';
import type { Config } from '../../config.js';
import { loadUserSummaries } from '../users/users.queries.js';
import { parseJson, type Db } from './guides.queries.js';
import type { GuideReleaseTable } from './guides.tables.js';
import type { GuideSnapshot } from './guides.snapshots.js';
import { publishEvent } from '../webhooks/webhooks.outbox.js';

export type ReleaseRow = Selectable<GuideReleaseTable>;

export const releaseHref = (config: Config, r: { guideid: number; langid: string; revisionid: number }) =>
  `${config.publicUrl}/api/2.0/guides/${r.guideid}?langid=${encodeURIComponent(r.langid)}&revisionid=${r.revisionid}`;

/** Release records for rows: one batched lookup of the users. */
export async function releaseRecords(db: Db, config: Config, rows: ReleaseRow[]) {
  const users = await loadUserSummaries(db, config, rows.map((r) => r.userid));
  return rows.map((r) => {
    const u = r.userid ? users.get(r.userid) : undefined;
    return {
      releaseid: r.releaseid,
      guideid: r.guideid,
      langid: r.langid,
      revisionid: r.revisionid,
      user: u ? { userid: u.userid, username: u.username, unique_username: u.unique_username, join_date: u.join_date, image: u.image, reputation: u.reputation, url: u.url, teams: u.teams, privileges: u.privileges } : null,
      status: r.status,
      title: r.title,
      init_date: r.init_date,
      release_date: r.release_date,
      notes: r.notes,
      type: r.type,
      href: releaseHref(config, r),
      version: r.version,
      ...(r.approval_requestid != null ? { approval_requestid: r.approval_requestid } : {}),
    };
  });
}

/** The next version after the newest release that is not removed, rejected or cancelled: major 1.0 -> 2.0, minor 1.0 -> 1.1. */
export async function nextVersion(db: Db, guideid: number, langid: string, type: string): Promise<string> {
  const last = await db.selectFrom('guide_releases').select('version').where('guideid', '=', guideid).where('langid', '=', langid)
    .where('status', 'not in', ['removed', 'rejected', 'cancelled']).where('version', 'is not', null).orderBy('releaseid', 'desc').limit(1).executeTakeFirst();
  const m = /^(\d+)\.(\d+)$/.exec(last?.version ?? '');
  const [major, minor] = m ? [Number(m[1]), Number(m[2])] : [0, 0];
  return type === 'major' ? `${major + 1}.0` : `${major}.${minor + 1}`;
}

/**
 * A slot for other areas: called inside the transaction in which a revision becomes
 * released (the periodic review counts a release made with `reviewed`). Guides import
 * none of the listeners; an area registers its own when its module loads.
 */
export type ReleasedListener = (trx: Db, release: ReleaseRow, now: number) => Promise<void>;
const releasedListeners: ReleasedListener[] = [];
export function onGuideReleased(listener: ReleasedListener) {
  if (!releasedListeners.includes(listener)) releasedListeners.push(listener);
}
/** Tells the listeners that `release` is released now (call it wherever a release becomes `released`). */
export async function guideReleased(trx: Db, release: ReleaseRow, now: number) {
  for (const listener of releasedListeners) await listener(trx, release, now);
}

/**
 * Inserts a release of a kept revision; its title is the guide's title at that revision.
 * `pending` for a release an approval request decides (approvals area).
 */
export async function createRelease(db: Db, now: number, r: { guideid: number; langid: string; revisionid: number; userid: number | null; type: string; notes: string; version?: string | null; status?: 'released' | 'pending'; reviewed?: boolean }) {
  const rev = await db.selectFrom('guide_revisions').select('snapshot').where('revisionid', '=', r.revisionid).executeTakeFirstOrThrow();
  const title = parseJson<GuideSnapshot | null>(rev.snapshot, null)?.fields.title ?? '';
  const version = r.version ?? (await nextVersion(db, r.guideid, r.langid, r.type));
  return db.insertInto('guide_releases').values({
    guideid: r.guideid, langid: r.langid, revisionid: r.revisionid, userid: r.userid, status: r.status ?? 'released', title, type: r.type, notes: r.notes,
    version, init_date: now, release_date: r.status === 'pending' ? null : now, reviewed: r.reviewed ? 1 : 0,
  }).returningAll().executeTakeFirstOrThrow();
}

/**
 * The webhook event of a release that is now `released`, written in the transaction that
 * released it (`trx`): `data` is the release record as the release lists answer it. Every
 * path that makes a release `released` (a direct release, a duplicate, a removed release
 * marked released again, an approval's last signature) calls it.
 */
export async function publishReleased(trx: Db, config: Config, now: number, row: ReleaseRow): Promise<void> {
  // The released-listeners (periodic review) on every path to `released` too.
  await guideReleased(trx, row, now);
  return publishEvent(trx, { now: () => now }, {
    key: 'Guides.Published',
    title: 'Guide Published',
    description: `${row.title || `Guide ${row.guideid}`} (${row.langid}) was released${row.version ? ` as version ${row.version}` : ''}.`,
    data: async () => (await releaseRecords(trx, config, [row]))[0],
  });
}
