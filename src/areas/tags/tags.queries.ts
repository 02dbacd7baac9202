// Tag storage shared by guides and wikis: one `tags` row per distinct tag, linked to
// documents through `doc_tags` (doctype 'guide' or 'wiki').
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { AuthUser } from '../../http/auth.js';
import { readableGuideIds } from '../shared/guide-access.js';
import { prepared } from '../../db/prepared.js';
import { guidesAheadOfReaders } from '../shared/guide-reader.js';

export type TagDoctype = 'guide' | 'wiki';

/** The one rule of tag changes on guides and wikis, as their route documentation states it. */
export const TAG_RULE = 'A tag change is a change of the resource: it takes the current `revisionid` (422 without it, 409 with the current record when stale) and makes a new revision. ' +
  'Adding a tag the resource has, or removing one it lacks, changes nothing (200, the same revisionid).';

/** Normalizes a tag as stored: trimmed, inner white space folded. */
export function normalizeTag(tag: string): string {
  return tag.trim().replace(/\s+/g, ' ');
}

/**
 * The tag's id, creating the tag if needed. One INSERT ... ON CONFLICT DO NOTHING, never a
 * caught unique violation: inside a PostgreSQL transaction a failed statement aborts the
 * whole transaction, so catching it and reading again cannot work under a race.
 */
async function tagId(db: Kysely<Database>, tag: string): Promise<number> {
  const existing = await db.selectFrom('tags').select('tagid').where('tag', '=', tag).executeTakeFirst();
  if (existing) return existing.tagid;
  const inserted = await db.insertInto('tags').values({ tag }).onConflict((oc) => oc.column('tag').doNothing()).returning('tagid').executeTakeFirst();
  if (inserted) return inserted.tagid;
  return (await db.selectFrom('tags').select('tagid').where('tag', '=', tag).executeTakeFirstOrThrow()).tagid;
}

/**
 * Adds a tag to a document, creating the tag if needed; true when the document did not
 * have it. Adding it twice (even at once) is a no-op.
 */
export async function addTag(db: Kysely<Database>, doctype: TagDoctype, docid: number, tag: string): Promise<boolean> {
  const tagid = await tagId(db, normalizeTag(tag));
  const r = await db.insertInto('doc_tags').values({ tagid, doctype, docid }).onConflict((oc) => oc.columns(['doctype', 'docid', 'tagid']).doNothing()).executeTakeFirst();
  return Number(r.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Removes a tag from a document; true when it was there. */
export async function removeTag(db: Kysely<Database>, doctype: TagDoctype, docid: number, tag: string): Promise<boolean> {
  const row = await db.selectFrom('tags').select('tagid').where('tag', '=', normalizeTag(tag)).executeTakeFirst();
  if (!row) return false;
  const r = await db.deleteFrom('doc_tags').where('doctype', '=', doctype).where('docid', '=', docid).where('tagid', '=', row.tagid).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

const tagsOfDoc = prepared<{ doctype: TagDoctype; docid: number }, { tag: string }>('doc_tags_of', (db, arg) =>
  db.selectFrom('doc_tags').innerJoin('tags', 'tags.tagid', 'doc_tags.tagid').select('tags.tag')
    .where('doc_tags.doctype', '=', arg('doctype')).where('doc_tags.docid', '=', arg('docid')).orderBy('tags.tag'));

/** A document's tags, alphabetically (every guide edit's snapshot reads them: prepared). */
export async function tagsOf(db: Kysely<Database>, doctype: TagDoctype, docid: number): Promise<string[]> {
  return (await tagsOfDoc(db, { doctype, docid })).map((r) => r.tag);
}

/** Tags of many documents in one query. */
export async function tagsOfMany(db: Kysely<Database>, doctype: TagDoctype, docids: number[]): Promise<Map<number, string[]>> {
  const out = new Map<number, string[]>();
  if (docids.length === 0) return out;
  const rows = await db.selectFrom('doc_tags').innerJoin('tags', 'tags.tagid', 'doc_tags.tagid')
    .select(['doc_tags.docid', 'tags.tag']).where('doc_tags.doctype', '=', doctype).where('doc_tags.docid', 'in', [...new Set(docids)])
    .orderBy('tags.tag').execute();
  for (const r of rows) {
    const list = out.get(r.docid) ?? [];
    list.push(r.tag);
    out.set(r.docid, list);
  }
  return out;
}

/** Removes every tag of a deleted document. */
export async function clearTags(db: Kysely<Database>, doctype: TagDoctype, docid: number) {
  await db.deleteFrom('doc_tags').where('doctype', '=', doctype).where('docid', '=', docid).execute();
}

/** A page of the tags in use on what `user` may read (wikis have no private state; a guide counts when the caller may read it), by tagid. */
export function listReadableTags(db: Kysely<Database>, user: AuthUser | null, page: { offset: number; limit: number; order?: 'ASC' | 'DESC' }) {
  return db.selectFrom('tags').select('tag')
    .where((eb) => eb.exists(eb.selectFrom('doc_tags as d').select('d.tagid').whereRef('d.tagid', '=', 'tags.tagid')
      .where((w) => w.or([
        w('d.doctype', '=', 'wiki'),
        // Not the tags of guides whose current revision readers do not see (areas/shared/guide-reader.ts).
        w.and([w('d.doctype', '=', 'guide'), w('d.docid', 'in', readableGuideIds(db, user)), w('d.docid', 'not in', guidesAheadOfReaders(db))]),
      ]))))
    .orderBy('tagid', page.order === 'DESC' ? 'desc' : 'asc').limit(page.limit).offset(page.offset).execute();
}
