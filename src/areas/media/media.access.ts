// Who may read and use a media library item. One rule for every read (the detail
// records, the files) and every write that names a media id (guide documents, guide and
// step images and videos, avatars, team images, comment media, wiki images):
//
//   a caller may read an item they own, any item when an Admin, and an item that content
//   they may read already shows;
//   content may refer only to items the caller may read (`checkMediaRefs`); an avatar or
//   a team image only to its owner's own items (`ownedBy`).
//
// Texts (wiki syntax or a document tree) embed items too: `embedRefs` gives the ids
// every write of such a text checks here.
//
// "Content that shows an item": a guide (its image, documents, a step's images or video)
// that is not deleted, in the language that shows it; a wiki's image; a user's avatar; a
// team's image; a comment's media (readable as what it is on); the poster of a video one
// may read. Public guides, wikis, avatars, teams and comments on them are public content.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { isAdmin, type AuthUser } from '../../http/auth.js';
import { unprocessable, type FieldError } from '../../http/errors.js';
import type { GuideRow } from '../guides/guides.queries.js';
import { canReadGuide } from '../shared/guide-access.js';
import { collectRefs } from '../../markup/index.js';

export type MediaKind = 'image' | 'video' | 'document';

const TABLES = {
  image: { table: 'images', id: 'imageid' },
  video: { table: 'videos', id: 'videoid' },
  document: { table: 'documents', id: 'documentid' },
} as const;

/** How many guide rows showing one batch of items are looked at (public ones first). */
const GUIDE_ROWS = 100;

type Db = Kysely<Database>;

/** The owner of each known item (unknown ids are absent). */
export async function mediaOwners(db: Db, kind: MediaKind, ids: number[]): Promise<Map<number, number | null>> {
  const out = new Map<number, number | null>();
  const wanted = [...new Set(ids)];
  if (wanted.length === 0) return out;
  const { table, id } = TABLES[kind];
  const rows = await (db.selectFrom(table) as any).select([`${id} as id`, 'userid']).where(id, 'in', wanted).execute() as Array<{ id: number; userid: number | null }>;
  for (const r of rows) out.set(r.id, r.userid);
  return out;
}

/** `documents` holds a JSON array of ids such as `[3,14]`: the patterns that find one id in it. */
function documentPatterns(id: number): string[] {
  return [`[${id}]`, `[${id},%`, `%,${id},%`, `%,${id}]`];
}

/** Guide rows (not deleted) that show items of `kind` among `ids`, public rows first. */
async function guideRowsShowing(db: Db, kind: MediaKind, ids: number[]): Promise<Array<{ mediaid: number; row: GuideRow }>> {
  let found: Array<{ mediaid: number; guideid: number; langid: string }> = [];
  if (kind === 'image') {
    const [chosen, steps] = await Promise.all([
      db.selectFrom('guides').select(['imageid as mediaid', 'guideid', 'langid']).where('imageid', 'in', ids).where('deleted', '=', 0)
        .orderBy('public', 'desc').limit(GUIDE_ROWS).execute(),
      db.selectFrom('guide_step_images as i').innerJoin('guide_steps as s', 's.stepid', 'i.stepid')
        .innerJoin('guides as g', (j) => j.onRef('g.guideid', '=', 's.guideid').onRef('g.langid', '=', 's.langid'))
        .select(['i.imageid as mediaid', 'g.guideid', 'g.langid']).where('i.imageid', 'in', ids).where('g.deleted', '=', 0)
        .orderBy('g.public', 'desc').limit(GUIDE_ROWS).execute(),
    ]);
    found = [...chosen.map((r) => ({ ...r, mediaid: r.mediaid! })), ...steps];
  } else if (kind === 'video') {
    found = await db.selectFrom('guide_steps as s')
      .innerJoin('guides as g', (j) => j.onRef('g.guideid', '=', 's.guideid').onRef('g.langid', '=', 's.langid'))
      .select(['s.videoid as mediaid', 'g.guideid', 'g.langid']).where('s.videoid', 'in', ids).where('g.deleted', '=', 0)
      .orderBy('g.public', 'desc').limit(GUIDE_ROWS).execute() as Array<{ mediaid: number; guideid: number; langid: string }>;
  } else {
    for (const id of ids) {
      const rows = await db.selectFrom('guides').select(['guideid', 'langid']).where('deleted', '=', 0)
        .where((eb) => eb.or(documentPatterns(id).map((p) => eb('documents', 'like', p))))
        .orderBy('public', 'desc').limit(GUIDE_ROWS).execute();
      found.push(...rows.map((r) => ({ ...r, mediaid: id })));
    }
  }
  // Comments on guides and steps show their media as the guide shows them.
  if (kind !== 'document') {
    const [onGuides, onSteps] = await Promise.all([
      db.selectFrom('comment_media as m').innerJoin('comments as c', 'c.commentid', 'm.commentid')
        .innerJoin('guides as g', 'g.guideid', 'c.contextid')
        .select(['m.mediaid', 'g.guideid', 'g.langid']).where('c.context', '=', 'guide').where('m.media_type', '=', kind).where('m.mediaid', 'in', ids)
        .where('g.deleted', '=', 0).orderBy('g.public', 'desc').limit(GUIDE_ROWS).execute(),
      db.selectFrom('comment_media as m').innerJoin('comments as c', 'c.commentid', 'm.commentid')
        .innerJoin('guide_steps as s', 's.stepid', 'c.contextid')
        .innerJoin('guides as g', (j) => j.onRef('g.guideid', '=', 's.guideid').onRef('g.langid', '=', 's.langid'))
        .select(['m.mediaid', 'g.guideid', 'g.langid']).where('c.context', '=', 'step').where('m.media_type', '=', kind).where('m.mediaid', 'in', ids)
        .where('g.deleted', '=', 0).orderBy('g.public', 'desc').limit(GUIDE_ROWS).execute(),
    ]);
    found.push(...onGuides, ...onSteps);
  }
  if (found.length === 0) return [];
  const keys = [...new Set(found.map((f) => `${f.guideid}:${f.langid}`))];
  const rows = await db.selectFrom('guides').selectAll().where((eb) => eb.or(keys.map((k) => {
    const [g, l] = k.split(':');
    return eb.and([eb('guideid', '=', Number(g)), eb('langid', '=', l)]);
  }))).execute();
  const byKey = new Map(rows.map((r) => [`${r.guideid}:${r.langid}`, r]));
  return found.map((f) => ({ mediaid: f.mediaid, row: byKey.get(`${f.guideid}:${f.langid}`)! })).filter((f) => f.row);
}

/** Items among `ids` that content anyone may read shows, other than guides. */
async function shownOutsideGuides(db: Db, kind: MediaKind, ids: number[]): Promise<Set<number>> {
  const out = new Set<number>();
  if (kind === 'document') return out;
  const queries: Array<Promise<Array<{ mediaid: number | null }>>> = [
    // Comments on wikis, info pages and posts: those are public.
    db.selectFrom('comment_media as m').innerJoin('comments as c', 'c.commentid', 'm.commentid').select('m.mediaid')
      .where('m.media_type', '=', kind).where('m.mediaid', 'in', ids).where('c.context', 'in', ['wiki', 'info', 'post']).execute(),
  ];
  if (kind === 'image') {
    queries.push(
      db.selectFrom('users').select('imageid as mediaid').where('imageid', 'in', ids).execute(),
      db.selectFrom('teams').select('imageid as mediaid').where('imageid', 'in', ids).execute(),
      db.selectFrom('wikis').select('imageid as mediaid').where('imageid', 'in', ids).execute(),
    );
  }
  for (const rows of await Promise.all(queries)) for (const r of rows) if (r.mediaid != null) out.add(r.mediaid);
  return out;
}

/** Items among `ids` that public content shows: anyone may read them, shared caches may keep them. */
export async function publicMedia(db: Db, kind: MediaKind, ids: number[]): Promise<Set<number>> {
  return readableMedia(db, null, kind, ids);
}

/**
 * The items among `ids` the caller (null: anonymous) may read: their own, every item
 * for an Admin, and items shown in content they may read. Unknown ids are left out.
 */
export async function readableMedia(db: Db, user: AuthUser | null, kind: MediaKind, ids: number[]): Promise<Set<number>> {
  const owners = await mediaOwners(db, kind, ids);
  const out = new Set<number>();
  for (const [id, owner] of owners) if (user && (isAdmin(user) || owner === user.userid)) out.add(id);
  let rest = [...owners.keys()].filter((id) => !out.has(id));
  if (rest.length === 0) return out;
  for (const id of await shownOutsideGuides(db, kind, rest)) out.add(id);
  rest = rest.filter((id) => !out.has(id));
  if (rest.length === 0) return out;
  const decided = new Map<GuideRow, boolean>();
  for (const { mediaid, row } of await guideRowsShowing(db, kind, rest)) {
    if (out.has(mediaid)) continue;
    let read = decided.get(row);
    if (read === undefined) {
      read = await canReadGuide(db, user, row);
      decided.set(row, read);
    }
    if (read) out.add(mediaid);
  }
  // A video's poster is shown wherever the video is.
  if (kind === 'image') {
    rest = rest.filter((id) => !out.has(id));
    if (rest.length) {
      const posters = await db.selectFrom('videos').select(['videoid', 'poster_imageid']).where('poster_imageid', 'in', rest).execute();
      const videos = await readableMedia(db, user, 'video', posters.map((p) => p.videoid));
      for (const p of posters) if (videos.has(p.videoid) && p.poster_imageid != null) out.add(p.poster_imageid);
    }
  }
  return out;
}

export interface MediaRef {
  kind: MediaKind;
  id: number;
  /** The request field that names it, for the 422. */
  field: string;
  index?: number;
}

/**
 * The one check of every write that names media: the errors (422) of each reference
 * the caller may not use. Content takes items the caller may read (`readableMedia`); with `ownedBy`
 * (avatars, team images) only items of that user. An unknown id and a forbidden one
 * answer alike, so the check tells nobody which ids exist.
 */
export async function mediaRefErrors(db: Db, user: AuthUser, refs: MediaRef[], opts: { ownedBy?: number } = {}): Promise<FieldError[]> {
  const errors: FieldError[] = [];
  for (const kind of ['image', 'video', 'document'] as const) {
    const mine = refs.filter((r) => r.kind === kind);
    if (mine.length === 0) continue;
    const ids = mine.map((r) => r.id);
    let usable: Set<number>;
    if (opts.ownedBy !== undefined) {
      const owners = await mediaOwners(db, kind, ids);
      usable = new Set([...owners].filter(([, owner]) => owner === opts.ownedBy).map(([id]) => id));
    } else {
      usable = await readableMedia(db, user, kind, ids);
    }
    for (const r of mine) {
      if (usable.has(r.id)) continue;
      const whose = opts.ownedBy === undefined ? 'yours or shown in content you may read' : opts.ownedBy === user.userid ? 'in your media library' : 'in that user\'s media library';
      errors.push({ field: r.field, code: 'invalid_value', message: `There is no ${kind} ${r.id} ${whose}.`, ...(r.index !== undefined ? { index: r.index } : {}) });
    }
  }
  const order = (e: FieldError) => refs.findIndex((r) => r.field === e.field);
  return errors.sort((x, y) => order(x) - order(y));
}

/**
 * The `[image|ID]` and `[video|ID]` embeds of wiki texts as references to check: a text
 * renders a signed URL for each, so a write may embed only what the caller may use.
 * Each text is named by the request field that holds it (undefined texts are skipped).
 */
export function embedRefs(texts: Array<{ field: string; text: string | undefined | null }>): MediaRef[] {
  const refs: MediaRef[] = [];
  for (const { field, text } of texts) {
    if (text == null) continue;
    const found = collectRefs(text);
    for (const id of found.images) refs.push({ kind: 'image', id, field });
    for (const id of found.videos) refs.push({ kind: 'video', id, field });
  }
  return refs;
}

/** `mediaRefErrors` as a 422. */
export async function checkMediaRefs(db: Db, user: AuthUser, refs: MediaRef[], opts: { ownedBy?: number } = {}): Promise<void> {
  const errors = await mediaRefErrors(db, user, refs, opts);
  if (errors.length) throw unprocessable(errors);
}
