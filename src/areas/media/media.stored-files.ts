// The media area's stored files for the orphan sweep (storage/orphans.ts): which keys of
// the `media` store are in use. An original is in use while its image, video or document
// row names it (`blob_key`); a variant while its image exists; an encoding while a
// video_encodings row names it or its video is still being processed (a retry writes it
// again). A deleted item's files belong to its pending `media.purge` job until that job
// deletes them (MEDIA_DELETE_GRACE_S, for backups): they are in use too.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { StoredFileRule } from '../../storage/orphans.js';
import { mediaKeyOwner } from './media.keys.js';
import { PURGE_JOB } from './media.service.js';

/** A delete's transaction that commits this long after it enqueued its purge is still seen by a sweep under way. */
const PURGE_LATE_COMMIT_S = 600;
const PAGE = 1000;

/** What the pending purges will delete: their keys and prefixes. */
class PurgeClaims {
  keys = new Set<string>();
  prefixes = new Set<string>();

  add(payload: string) {
    const p = JSON.parse(payload) as { keys?: string[]; prefixes?: string[] };
    for (const k of p.keys ?? []) this.keys.add(k);
    for (const k of p.prefixes ?? []) this.prefixes.add(k);
  }

  has(key: string): boolean {
    if (this.keys.has(key)) return true;
    for (let i = key.indexOf('/'); i > 0; i = key.indexOf('/', i + 1)) if (this.prefixes.has(key.slice(0, i))) return true;
    return false;
  }

  /** The purges waiting or running, those created since `since` only when given (read in pages). */
  async load(db: Kysely<Database>, since?: number) {
    let after = 0;
    for (;;) {
      let q = db.selectFrom('jobs').select(['jobid', 'payload']).where('type', '=', PURGE_JOB).where('status', 'in', ['pending', 'running']).where('jobid', '>', after);
      if (since !== undefined) q = q.where('created_date', '>=', since);
      const rows = await q.orderBy('jobid').limit(PAGE).execute();
      for (const r of rows) this.add(r.payload);
      if (rows.length < PAGE) return;
      after = rows[rows.length - 1].jobid;
    }
  }
}

export const mediaStoredFiles: StoredFileRule = {
  namespace: 'media',
  owns: (key) => mediaKeyOwner(key) !== null,
  async start(db, now) {
    // Bounded by the deletes of one MEDIA_DELETE_GRACE_S, not by the site's size.
    const purges = new PurgeClaims();
    await purges.load(db);
    return async (keys) => {
      const owners = keys.map((key) => ({ key, owner: mediaKeyOwner(key)! }));
      const guids = (kind: string) => [...new Set(owners.filter((o) => o.owner.kind === kind).map((o) => o.owner.guid))];
      const originals = guids('original');
      const variants = guids('variant');
      const encodings = guids('encoding');
      const [images, videos, documents, withVariants, encoded] = await Promise.all([
        originals.length ? db.selectFrom('images').select('blob_key').where('guid', 'in', originals).execute() : [],
        originals.length ? db.selectFrom('videos').select('blob_key').where('guid', 'in', originals).execute() : [],
        originals.length ? db.selectFrom('documents').select('blob_key').where('guid', 'in', originals).execute() : [],
        variants.length ? db.selectFrom('images').select('guid').where('guid', 'in', variants).execute() : [],
        encodings.length ? db.selectFrom('videos as v').leftJoin('video_encodings as e', 'e.videoid', 'v.videoid')
          .select(['v.guid', 'v.state', 'e.blob_key']).where('v.guid', 'in', encodings).execute() : [],
      ]);
      // After the rows: a delete that committed before those reads has its purge job seen here.
      await purges.load(db, now - PURGE_LATE_COMMIT_S);
      const named = new Set<string>([...images, ...videos, ...documents].map((r) => r.blob_key).filter((k): k is string => !!k));
      for (const e of encoded) if (e.blob_key) named.add(e.blob_key);
      const imageGuids = new Set(withVariants.map((r) => r.guid));
      const inProgress = new Set(encoded.filter((e) => e.state === 'queued' || e.state === 'processing').map((e) => e.guid));
      const inUse = new Set<string>();
      for (const { key, owner } of owners) {
        const used = owner.kind === 'original' ? named.has(key)
          : owner.kind === 'variant' ? imageGuids.has(owner.guid)
            : named.has(key) || inProgress.has(owner.guid);
        if (used || purges.has(key)) inUse.add(key);
      }
      return inUse;
    };
  },
};
