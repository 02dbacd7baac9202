// Writes of the wikis area that span tables: create, edit (source or translation),
// revert, re-parent, delete and release, each in one transaction, each keeping its
// revision. The revision check is atomic: `UPDATE ... WHERE revisionid = <sent>` and a
// look at the affected row count, so two racing editors cannot both win.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import type { AuthUser } from '../../http/auth.js';
import { forbidden, invalidField, missingField, notFound, unprocessable } from '../../http/errors.js';
import { fromBool, isUniqueViolation } from '../../db/helpers.js';
import { lockForTransaction } from '../../db/locks.js';
import { docToWiki, type DocNode } from '../../markup/index.js';
import { addTag, clearTags, normalizeTag, removeTag } from '../tags/tags.queries.js';
import { lockedAtRevision, NothingToChange, StaleRevision } from '../content/revisions.js';
import { deleteCommentsOn } from '../comments/comments.queries.js';
import { categoryHasGuides } from './category-guides.js';
import { canEditWiki, categoryAncestors, findWiki, type TranslationRow, type WikiRow, withExcerpt } from './wikis.queries.js';
import type { Namespace, WikiCreate, WikiPatch } from './wikis.schemas.js';
import { checkMediaRefs, embedRefs, readableMedia } from '../media/media.access.js';
import { invalidateReleasedDocument } from '../shared/course-progress.js';
import { audit, changesOf, type AuditChanges } from '../../audit/audit.js';
import type { AuditAction } from '../../audit/actions.js';

const CATEGORY_ONLY = ['parent', 'stub', 'identification'] as const;
const ITEM_ONLY = ['item_type', 'suppliers'] as const;
const TRANSLATABLE = new Set(['display_title', 'description', 'contents', 'contents_json', 'identification']);

/** 422 unless the language is one of the site's. */
export function checkLangid(config: Config, langid: string, field = 'langid') {
  if (!config.languages.includes(langid)) throw invalidField(field, `${field} must be one of the site's languages: ${config.languages.join(', ')}.`);
}

/** Titles: trimmed, no "/" or control characters; TEAM a teamid, USER a userid, both existing. */
export async function checkTitle(db: Kysely<Database>, namespace: Namespace, raw: string): Promise<string> {
  const title = raw.trim();
  if (!title) throw invalidField('title', 'title must not be blank.');
  // eslint-disable-next-line no-control-regex
  if (/[/\u0000-\u001f\u007f]/.test(title)) throw invalidField('title', 'title must not contain "/" or control characters.');
  if (namespace === 'TEAM' || namespace === 'USER') {
    if (!/^[1-9]\d{0,9}$/.test(title)) throw invalidField('title', `The title of a ${namespace} wiki is the ${namespace === 'TEAM' ? 'teamid' : 'userid'}.`);
    const exists = namespace === 'TEAM'
      ? await db.selectFrom('teams').select('teamid').where('teamid', '=', Number(title)).executeTakeFirst()
      : await db.selectFrom('users').select('userid').where('userid', '=', Number(title)).executeTakeFirst();
    if (!exists) throw invalidField('title', `No ${namespace === 'TEAM' ? 'team' : 'user'} ${title}.`);
  }
  return title;
}

const MAX_CONTENTS = 1_000_000;

/** The wiki text a write sends: `contents`, or `contents_json` written as the editor writes it; never both. */
function contentsOf(body: { contents?: string; contents_json?: unknown }): string | undefined {
  if (body.contents !== undefined && body.contents_json !== undefined) {
    throw invalidField('contents_json', 'Send either contents (wiki syntax) or contents_json (a document tree), not both.');
  }
  if (body.contents !== undefined) return body.contents;
  if (body.contents_json === undefined) return undefined;
  const text = docToWiki(body.contents_json as DocNode);
  if (text.length > MAX_CONTENTS) throw invalidField('contents_json', `The document is longer than ${MAX_CONTENTS} characters as wiki syntax.`);
  return text;
}

async function checkImage(db: Kysely<Database>, user: AuthUser, imageid: number | null | undefined) {
  if (imageid == null) return;
  await checkMediaRefs(db, user, [{ kind: 'image', id: imageid, field: 'image' }]);
}

/** The texts a write sends may embed only media the caller may use. */
async function checkEmbeds(db: Kysely<Database>, user: AuthUser, body: { contents_json?: unknown; identification?: string }, contents: string | undefined) {
  await checkMediaRefs(db, user, embedRefs([
    { field: body.contents_json !== undefined ? 'contents_json' : 'contents', text: contents },
    { field: 'identification', text: body.identification },
  ]));
}

/** Namespace rules: which fields this namespace takes at all. */
function checkNamespaceFields(namespace: string, body: Record<string, unknown>) {
  const errors = [];
  for (const f of CATEGORY_ONLY) if (body[f] !== undefined && namespace !== 'CATEGORY') errors.push({ field: f, code: 'invalid_value', message: `${f} is a field of CATEGORY wikis only.` });
  for (const f of ITEM_ONLY) if (body[f] !== undefined && namespace !== 'ITEM') errors.push({ field: f, code: 'invalid_value', message: `${f} is a field of ITEM wikis only.` });
  if (errors.length) throw unprocessable(errors);
}

/** The parent category's wikiid for a title, refusing unknown titles and cycles. */
async function resolveParent(db: Kysely<Database>, wikiid: number | null, parent: string | null): Promise<number | null> {
  if (parent === null) return null;
  const row = await findWiki(db, 'CATEGORY', parent.trim());
  if (!row) throw invalidField('parent', `No category "${parent}".`);
  if (wikiid !== null && (await categoryAncestors(db, row.wikiid)).includes(wikiid)) {
    throw invalidField('parent', 'A category cannot be moved under itself or one of its descendants.', 'cycle');
  }
  return row.wikiid;
}

interface Snapshot {
  imageid: number | null;
  table_of_contents: number;
  stub: number;
  item_type: string | null;
  suppliers: string;
  parentid: number | null;
}

const snapshotOf = (w: Snapshot): Snapshot => ({
  imageid: w.imageid, table_of_contents: w.table_of_contents, stub: w.stub, item_type: w.item_type, suppliers: w.suppliers, parentid: w.parentid,
});

interface TextFields { langid: string; display_title: string; summary: string; contents_raw: string; identification_raw: string }

async function addRevision(db: Kysely<Database>, wikiid: number, texts: TextFields, fields: Snapshot | null, action: string, userid: number | null, now: number): Promise<number> {
  const row = await db.insertInto('wiki_revisions').values({
    wikiid, langid: texts.langid, display_title: texts.display_title, summary: texts.summary, contents_raw: texts.contents_raw,
    identification_raw: texts.identification_raw, fields: JSON.stringify(fields ?? {}), action, userid, date: now,
  }).returning('revisionid').executeTakeFirstOrThrow();
  return row.revisionid;
}

/** Records a change of a wiki in a language, in the change's transaction (docs/audit.md). */
async function auditWiki(trx: Kysely<Database>, user: AuthUser, now: number, action: AuditAction, wikiid: number, langid: string, revisions: { before?: number | null; after?: number | null }, changes: AuditChanges | null = null, reason: string | null = null) {
  await audit(trx, {
    action, actor: user, time: now, resource_type: 'wiki', resource_id: wikiid, langid,
    revisionid_before: revisions.before ?? null, revisionid_after: revisions.after ?? null, changes, reason,
  });
}

/** The columns a change wrote that differ from the row before (values only for short scalars). */
const changedColumns = (before: object, after: object) => changesOf(before as Record<string, unknown>, after as Record<string, unknown>);

export async function createWiki(db: Kysely<Database>, config: Config, user: AuthUser, now: number, body: WikiCreate): Promise<WikiRow> {
  const namespace = body.namespace;
  const title = await checkTitle(db, namespace, body.title);
  if (!(await canEditWiki(db, user, namespace, title))) throw forbidden(`You may not create ${namespace} wikis${namespace === 'TEAM' || namespace === 'USER' ? ' for this ' + namespace.toLowerCase() : ''}.`);
  const contents = contentsOf(body);
  if (contents === undefined) throw missingField('contents');
  checkNamespaceFields(namespace, body);
  await checkEmbeds(db, user, body, contents);
  const langid = body.langid ?? config.languages[0];
  checkLangid(config, langid);
  await checkImage(db, user, body.image);
  let displayTitle = body.display_title?.trim() ?? '';
  if (!displayTitle && (namespace === 'TEAM' || namespace === 'USER')) {
    // A team's or user's page shows their name, not their id.
    displayTitle = namespace === 'TEAM'
      ? (await db.selectFrom('teams').select('name').where('teamid', '=', Number(title)).executeTakeFirstOrThrow()).name
      : (await db.selectFrom('users').select('username').where('userid', '=', Number(title)).executeTakeFirstOrThrow()).username;
  }
  try {
    return await db.transaction().execute(async (trx) => {
      if (namespace === 'CATEGORY') await lockForTransaction(trx, 'wikis:category-tree');
      const parentid = namespace === 'CATEGORY' ? await resolveParent(trx, null, body.parent ?? null) : null;
      const values = withExcerpt({
        namespace, title, langid, display_title: displayTitle, summary: body.description ?? '', contents_raw: contents,
        identification_raw: body.identification ?? '', imageid: body.image ?? null, table_of_contents: fromBool(body.table_of_contents),
        parentid, stub: fromBool(body.stub), item_type: namespace === 'ITEM' ? body.item_type ?? null : null,
        suppliers: JSON.stringify(namespace === 'ITEM' ? body.suppliers ?? [] : []), userid: user.userid, created_date: now, modified_date: now,
      });
      const { wikiid } = await trx.insertInto('wikis').values({ ...values, revisionid: 0 }).returning('wikiid').executeTakeFirstOrThrow();
      const revisionid = await addRevision(trx, wikiid, values, snapshotOf(values), 'create', user.userid, now);
      await trx.updateTable('wikis').set({ revisionid }).where('wikiid', '=', wikiid).execute();
      await auditWiki(trx, user, now, 'wiki.created', wikiid, langid, { after: revisionid }, changesOf(null, { namespace, title }));
      return (await trx.selectFrom('wikis').selectAll().where('wikiid', '=', wikiid).executeTakeFirstOrThrow());
    });
  } catch (err) {
    if (isUniqueViolation(err)) throw invalidField('title', `A ${namespace} wiki titled "${title}" already exists.`, 'duplicate');
    throw err;
  }
}

/**
 * Edits the version of `langid`: the source (the wikis row) or a translation, which is
 * created by the first edit in its language (the revisionid sent is then the source's,
 * as GET in that language showed it). Throws StaleRevision when `revisionid` is not current.
 */
export async function editWiki(db: Kysely<Database>, config: Config, user: AuthUser, now: number, wiki: WikiRow, langid: string, revisionid: number, body: WikiPatch): Promise<void> {
  checkNamespaceFields(wiki.namespace, body);
  const contents = contentsOf(body);
  await checkEmbeds(db, user, body, contents);
  if (langid !== wiki.langid) {
    checkLangid(config, langid);
    const wrong = Object.keys(body).filter((k) => (body as Record<string, unknown>)[k] !== undefined && !TRANSLATABLE.has(k));
    if (wrong.length) throw unprocessable(wrong.map((f) => ({ field: f, code: 'invalid_value', message: `${f} is the same in every language: change it in the source language (${wiki.langid}).` })));
    await db.transaction().execute(async (trx) => {
      const existing = await trx.selectFrom('wiki_translations').selectAll().where('wikiid', '=', wiki.wikiid).where('langid', '=', langid).executeTakeFirst();
      const base = existing ?? wiki;
      const texts: TextFields = {
        langid,
        display_title: body.display_title !== undefined ? body.display_title.trim() : existing?.display_title ?? (wiki.display_title || wiki.title),
        summary: body.description ?? base.summary,
        contents_raw: contents ?? base.contents_raw,
        identification_raw: body.identification ?? base.identification_raw,
      };
      if (!texts.display_title) texts.display_title = wiki.title;
      if (existing) {
        const newRev = await addRevision(trx, wiki.wikiid, texts, null, 'edit', user.userid, now);
        const r = await trx.updateTable('wiki_translations').set({ ...withExcerpt(texts), revisionid: newRev, userid: user.userid, modified_date: now })
          .where('wikiid', '=', wiki.wikiid).where('langid', '=', langid).where('revisionid', '=', revisionid).executeTakeFirst();
        lockedAtRevision(r);
        await auditWiki(trx, user, now, 'wiki.edited', wiki.wikiid, langid, { before: revisionid, after: newRev }, changedColumns(existing, texts));
      } else {
        const current = await trx.selectFrom('wikis').select('revisionid').where('wikiid', '=', wiki.wikiid).executeTakeFirst();
        if (!current) throw notFound('Wiki');
        if (current.revisionid !== revisionid) throw new StaleRevision();
        const newRev = await addRevision(trx, wiki.wikiid, texts, null, 'translate', user.userid, now);
        try {
          await trx.insertInto('wiki_translations').values({ wikiid: wiki.wikiid, ...withExcerpt(texts), revisionid: newRev, userid: user.userid, created_date: now, modified_date: now }).execute();
        } catch (err) {
          if (isUniqueViolation(err)) throw new StaleRevision();
          throw err;
        }
        await auditWiki(trx, user, now, 'wiki.translated', wiki.wikiid, langid, { before: revisionid, after: newRev }, changedColumns({}, texts));
      }
    });
    return;
  }
  await checkImage(db, user, body.image);
  await db.transaction().execute(async (trx) => {
    if (body.parent !== undefined) await lockForTransaction(trx, 'wikis:category-tree');
    const current = await trx.selectFrom('wikis').selectAll().where('wikiid', '=', wiki.wikiid).executeTakeFirst();
    if (!current) throw notFound('Wiki');
    if (current.revisionid !== revisionid) throw new StaleRevision();
    const set = withExcerpt({
      display_title: body.display_title !== undefined ? body.display_title.trim() : current.display_title,
      summary: body.description ?? current.summary,
      contents_raw: contents ?? current.contents_raw,
      identification_raw: body.identification ?? current.identification_raw,
      imageid: body.image !== undefined ? body.image : current.imageid,
      table_of_contents: body.table_of_contents !== undefined ? fromBool(body.table_of_contents) : current.table_of_contents,
      stub: body.stub !== undefined ? fromBool(body.stub) : current.stub,
      item_type: body.item_type !== undefined ? body.item_type : current.item_type,
      suppliers: body.suppliers !== undefined ? JSON.stringify(body.suppliers) : current.suppliers,
      parentid: body.parent !== undefined ? await resolveParent(trx, wiki.wikiid, body.parent) : current.parentid,
    });
    const newRev = await addRevision(trx, wiki.wikiid, { langid: wiki.langid, ...set }, snapshotOf(set), 'edit', user.userid, now);
    const r = await trx.updateTable('wikis').set({ ...set, revisionid: newRev, modified_date: now })
      .where('wikiid', '=', wiki.wikiid).where('revisionid', '=', revisionid).executeTakeFirst();
    lockedAtRevision(r);
    await auditWiki(trx, user, now, 'wiki.edited', wiki.wikiid, wiki.langid, { before: revisionid, after: newRev }, changedColumns(current, set));
  });
}

/** Moves a category under another (or to the top); a new revision of the source language. */
export async function setParent(db: Kysely<Database>, user: AuthUser, now: number, wiki: WikiRow, revisionid: number, parent: string | null): Promise<void> {
  await db.transaction().execute(async (trx) => {
    await lockForTransaction(trx, 'wikis:category-tree');
    const current = await trx.selectFrom('wikis').selectAll().where('wikiid', '=', wiki.wikiid).executeTakeFirst();
    if (!current) throw notFound('Category');
    if (current.revisionid !== revisionid) throw new StaleRevision();
    const parentid = await resolveParent(trx, wiki.wikiid, parent);
    const newRev = await addRevision(trx, wiki.wikiid, current, snapshotOf({ ...current, parentid }), 'parent', user.userid, now);
    const r = await trx.updateTable('wikis').set({ parentid, revisionid: newRev, modified_date: now })
      .where('wikiid', '=', wiki.wikiid).where('revisionid', '=', revisionid).executeTakeFirst();
    lockedAtRevision(r);
    await auditWiki(trx, user, now, 'wiki.edited', wiki.wikiid, wiki.langid, { before: revisionid, after: newRev }, changedColumns(current, { parentid }));
  });
}

/**
 * Makes an earlier revision's content current again, as a new revision. The source
 * language also gets back its image, table of contents, stub flag and item fields; the
 * place in the category tree stays (it changes through PUT .../parent only).
 */
export async function revertWiki(db: Kysely<Database>, user: AuthUser, now: number, wiki: WikiRow, langid: string, revisionid: number, target: number): Promise<void> {
  const rev = await db.selectFrom('wiki_revisions').selectAll().where('revisionid', '=', target).executeTakeFirst();
  if (!rev || rev.wikiid !== wiki.wikiid || rev.langid !== langid) throw invalidField('target_revisionid', `Revision ${target} is not a revision of this wiki in ${langid}.`);
  const texts: TextFields = { langid, display_title: rev.display_title, summary: rev.summary, contents_raw: rev.contents_raw, identification_raw: rev.identification_raw };
  await db.transaction().execute(async (trx) => {
    if (langid !== wiki.langid) {
      const newRev = await addRevision(trx, wiki.wikiid, texts, null, 'revert', user.userid, now);
      const r = await trx.updateTable('wiki_translations').set({ ...withExcerpt(texts), revisionid: newRev, userid: user.userid, modified_date: now })
        .where('wikiid', '=', wiki.wikiid).where('langid', '=', langid).where('revisionid', '=', revisionid).executeTakeFirst();
      lockedAtRevision(r);
      await auditWiki(trx, user, now, 'wiki.reverted', wiki.wikiid, langid, { before: revisionid, after: newRev }, { target_revisionid: { new: target } });
      return;
    }
    const current = await trx.selectFrom('wikis').selectAll().where('wikiid', '=', wiki.wikiid).executeTakeFirst();
    if (!current) throw notFound('Wiki');
    const old = JSON.parse(rev.fields || '{}') as Partial<Snapshot>;
    let imageid = old.imageid === undefined ? current.imageid : old.imageid;
    // An image gone, or one the caller may no longer use, is not brought back.
    if (imageid !== null && !(await readableMedia(trx, user, 'image', [imageid])).has(imageid)) imageid = null;
    const set = withExcerpt({
      display_title: texts.display_title, summary: texts.summary, contents_raw: texts.contents_raw, identification_raw: texts.identification_raw,
      imageid,
      table_of_contents: old.table_of_contents ?? current.table_of_contents,
      stub: old.stub ?? current.stub,
      item_type: old.item_type === undefined ? current.item_type : old.item_type,
      suppliers: old.suppliers ?? current.suppliers,
    });
    const newRev = await addRevision(trx, wiki.wikiid, texts, snapshotOf({ ...set, parentid: current.parentid }), 'revert', user.userid, now);
    const r = await trx.updateTable('wikis').set({ ...set, revisionid: newRev, modified_date: now })
      .where('wikiid', '=', wiki.wikiid).where('revisionid', '=', revisionid).executeTakeFirst();
    lockedAtRevision(r);
    await auditWiki(trx, user, now, 'wiki.reverted', wiki.wikiid, langid, { before: revisionid, after: newRev }, { target_revisionid: { new: target }, ...changedColumns(current, set) });
  });
}

/**
 * Adds or removes a tag, as a change of the version of `langid` (its translation when it
 * has one, else the source): checks `revisionid` atomically and keeps a new revision
 * (action tag or untag). The tag is checked first, inside the transaction like every
 * other check of the change. NothingToChange when the wiki already has (or lacks) it.
 */
export async function tagWiki(db: Kysely<Database>, user: AuthUser, now: number, wiki: WikiRow, langid: string, revisionid: number, raw: string, adding: boolean): Promise<void> {
  const action = adding ? 'tag' : 'untag';
  await db.transaction().execute(async (trx) => {
    const tag = normalizeTag(raw);
    if (!tag) throw invalidField('tag', 'tag must not be blank.');
    const translation = langid === wiki.langid ? undefined
      : await trx.selectFrom('wiki_translations').selectAll().where('wikiid', '=', wiki.wikiid).where('langid', '=', langid).executeTakeFirst();
    const locked = translation
      ? await trx.updateTable('wiki_translations').set({ modified_date: now }).where('wikiid', '=', wiki.wikiid).where('langid', '=', langid).where('revisionid', '=', revisionid).executeTakeFirst()
      : await trx.updateTable('wikis').set({ modified_date: now }).where('wikiid', '=', wiki.wikiid).where('revisionid', '=', revisionid).executeTakeFirst();
    lockedAtRevision(locked);
    const changed = adding ? await addTag(trx, 'wiki', wiki.wikiid, tag) : await removeTag(trx, 'wiki', wiki.wikiid, tag);
    if (!changed) throw new NothingToChange();
    let newRev: number;
    if (translation) {
      newRev = await addRevision(trx, wiki.wikiid, translation, null, action, user.userid, now);
      await trx.updateTable('wiki_translations').set({ revisionid: newRev }).where('wikiid', '=', wiki.wikiid).where('langid', '=', langid).execute();
    } else {
      const current = await trx.selectFrom('wikis').selectAll().where('wikiid', '=', wiki.wikiid).executeTakeFirstOrThrow();
      newRev = await addRevision(trx, wiki.wikiid, current, snapshotOf(current), action, user.userid, now);
      await trx.updateTable('wikis').set({ revisionid: newRev }).where('wikiid', '=', wiki.wikiid).execute();
    }
    await auditWiki(trx, user, now, adding ? 'wiki.tagged' : 'wiki.untagged', wiki.wikiid, langid, { before: revisionid, after: newRev }, { tag: { new: tag } });
  });
}

/**
 * Deletes a translation (langid other than the source) or the whole wiki: its
 * translations, tags, comments and releases go with it; its revisions are kept. A
 * category with child categories or guides is refused.
 */
export async function deleteWiki(db: Kysely<Database>, user: AuthUser, now: number, wiki: WikiRow, langid: string, revisionid: number): Promise<void> {
  if (langid !== wiki.langid) {
    await db.transaction().execute(async (trx) => {
      const tr: TranslationRow | undefined = await trx.selectFrom('wiki_translations').selectAll().where('wikiid', '=', wiki.wikiid).where('langid', '=', langid).executeTakeFirst();
      if (!tr) throw notFound('Translation');
      const r = await trx.deleteFrom('wiki_translations').where('wikiid', '=', wiki.wikiid).where('langid', '=', langid).where('revisionid', '=', revisionid).executeTakeFirst();
      lockedAtRevision(r);
      await auditWiki(trx, user, now, 'wiki.deleted', wiki.wikiid, langid, { before: revisionid });
    });
    return;
  }
  await db.transaction().execute(async (trx) => {
    if (wiki.namespace === 'CATEGORY') {
      await lockForTransaction(trx, 'wikis:category-tree');
      const child = await trx.selectFrom('wikis').select('title').where('namespace', '=', 'CATEGORY').where('parentid', '=', wiki.wikiid).limit(1).executeTakeFirst();
      if (child) throw invalidField('title', `The category has child categories (e.g. "${child.title}"): move or delete them first.`, 'not_empty');
      if (await categoryHasGuides(trx, wiki.title)) throw invalidField('title', 'Guides are filed under this category: move them first.', 'not_empty');
    }
    await trx.deleteFrom('wiki_translations').where('wikiid', '=', wiki.wikiid).execute();
    const r = await trx.deleteFrom('wikis').where('wikiid', '=', wiki.wikiid).where('revisionid', '=', revisionid).executeTakeFirst();
    lockedAtRevision(r);
    await clearTags(trx, 'wiki', wiki.wikiid);
    await deleteCommentsOn(trx, wiki.namespace === 'INFO' ? 'info' : 'wiki', wiki.wikiid);
    await trx.deleteFrom('wiki_releases').where('wikiid', '=', wiki.wikiid).execute();
    await auditWiki(trx, user, now, 'wiki.deleted', wiki.wikiid, wiki.langid, { before: revisionid }, changesOf(null, { namespace: wiki.namespace, title: wiki.title }));
  });
}

/** The next version after the wiki's releases in a language: N.0 for major, N.M+1 for minor. */
export function nextVersion(versions: Array<string | null>, type: 'major' | 'minor'): string {
  let major = 0;
  let minor = 0;
  for (const v of versions) {
    const m = /^(\d+)\.(\d+)$/.exec(v ?? '');
    if (!m) continue;
    const [a, b] = [Number(m[1]), Number(m[2])];
    if (a > major || (a === major && b > minor)) [major, minor] = [a, b];
  }
  return type === 'major' ? `${major + 1}.0` : `${major}.${minor + 1}`;
}

/** Releases the current revision of a language; StaleRevision when `revisionid` is not it. */
export async function releaseWiki(db: Kysely<Database>, user: AuthUser, now: number, wiki: WikiRow, langid: string, revisionid: number, body: { title?: string; notes?: string; type?: 'major' | 'minor'; version?: string }): Promise<number> {
  return db.transaction().execute(async (trx) => {
    await lockForTransaction(trx, `wikis:release:${wiki.wikiid}`);
    let current: { revisionid: number; display_title: string } | undefined;
    if (langid === wiki.langid) current = await trx.selectFrom('wikis').select(['revisionid', 'display_title']).where('wikiid', '=', wiki.wikiid).executeTakeFirst();
    else current = await trx.selectFrom('wiki_translations').select(['revisionid', 'display_title']).where('wikiid', '=', wiki.wikiid).where('langid', '=', langid).executeTakeFirst();
    if (!current) throw notFound(langid === wiki.langid ? 'Wiki' : 'Translation');
    if (current.revisionid !== revisionid) throw new StaleRevision();
    const type = body.type ?? 'major';
    const previous = await trx.selectFrom('wiki_releases').select('version').where('wikiid', '=', wiki.wikiid).where('langid', '=', langid).where('status', '!=', 'removed').execute();
    const row = await trx.insertInto('wiki_releases').values({
      wikiid: wiki.wikiid, langid, revisionid, userid: user.userid, status: 'released',
      title: body.title?.trim() || current.display_title || wiki.title, notes: body.notes ?? '', type,
      version: body.version ?? nextVersion(previous.map((p) => p.version), type), init_date: now, release_date: now,
    }).returning('releaseid').executeTakeFirstOrThrow();
    // Course stages on this wiki whose strictness asks for it lose their completions (in this transaction).
    await invalidateReleasedDocument(trx, now, { doctype: 'wiki', docid: wiki.wikiid, type });
    await auditWiki(trx, user, now, 'wiki.released', wiki.wikiid, langid, { after: revisionid }, { releaseid: { new: row.releaseid }, type: { new: type } }, body.notes || null);
    return row.releaseid;
  });
}

/** Marks a release removed (the record is kept); removing a removed one changes nothing. */
export async function removeWikiRelease(db: Kysely<Database>, user: AuthUser, now: number, release: { releaseid: number; wikiid: number; langid: string; revisionid: number }): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const r = await trx.updateTable('wiki_releases').set({ status: 'removed' }).where('releaseid', '=', release.releaseid).where('status', '!=', 'removed').executeTakeFirst();
    if (Number(r.numUpdatedRows) === 0) return;
    await auditWiki(trx, user, now, 'wiki.release_removed', release.wikiid, release.langid, { after: release.revisionid }, { releaseid: { new: release.releaseid }, status: { new: 'removed' } });
  });
}
