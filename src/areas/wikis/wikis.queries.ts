// Queries of the wikis area: plain functions taking the database (or a transaction) first.
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import type { WikiTable } from '../../db/foundation.tables.js';
import type { AuthUser } from '../../http/auth.js';
import { hasPrivilege, isAdmin } from '../../http/auth.js';
import { loadImageObjects } from '../media/image-object.js';
import { isTeamLead } from '../teams/teams.access.js';
import type { WikiTranslationTable } from './wikis.tables.js';
import type { WikiLight } from './wikis.schemas.js';
import { plainText, wikiToDoc } from '../../markup/index.js';

export type WikiRow = Selectable<WikiTable>;
export type TranslationRow = Selectable<WikiTranslationTable>;

/** The texts of one language of a wiki: the source's (from the wikis row) or a translation's. */
export interface WikiTexts {
  langid: string;
  display_title: string;
  summary: string;
  contents_raw: string;
  identification_raw: string;
  revisionid: number;
  modified_date: number;
}

export const wikiUrl = (config: Config, namespace: string, title: string) =>
  `${config.publicUrl}/api/2.0/wikis/${namespace}/${encodeURIComponent(title)}`;

export function findWiki(db: Kysely<Database>, namespace: string, title: string) {
  return db.selectFrom('wikis').selectAll().where('namespace', '=', namespace).where('title', '=', title).executeTakeFirst();
}

/**
 * The wiki a path names by the title a reader sees (the specification's tag paths take
 * the display title): the stored title first; else the wikis of the namespace whose
 * display title (of the source or of a translation) it is. Several such wikis: their
 * stored titles (the first 20), for the caller to choose.
 */
export async function findWikiByShownTitle(db: Kysely<Database>, namespace: string, title: string): Promise<WikiRow | { ambiguous: string[] } | undefined> {
  const stored = await findWiki(db, namespace, title);
  if (stored) return stored;
  const rows = await db.selectFrom('wikis').selectAll().where('namespace', '=', namespace)
    .where((eb) => eb.or([
      eb('display_title', '=', title),
      eb('wikiid', 'in', eb.selectFrom('wiki_translations').select('wikiid').where('display_title', '=', title)),
    ]))
    .orderBy('title').limit(20).execute();
  if (rows.length <= 1) return rows[0];
  return { ambiguous: rows.map((r) => r.title) };
}

export function findWikiById(db: Kysely<Database>, wikiid: number) {
  return db.selectFrom('wikis').selectAll().where('wikiid', '=', wikiid).executeTakeFirst();
}

export function sourceTexts(w: WikiRow): WikiTexts {
  return {
    langid: w.langid, display_title: w.display_title, summary: w.summary, contents_raw: w.contents_raw,
    identification_raw: w.identification_raw, revisionid: w.revisionid, modified_date: w.modified_date,
  };
}

export function translationTexts(t: TranslationRow): WikiTexts {
  return {
    langid: t.langid, display_title: t.display_title, summary: t.summary, contents_raw: t.contents_raw,
    identification_raw: t.identification_raw, revisionid: t.revisionid, modified_date: t.modified_date,
  };
}

/** Translations of many wikis into one language, in one query. */
export async function translationsOf(db: Kysely<Database>, wikiids: number[], langid: string): Promise<Map<number, TranslationRow>> {
  const out = new Map<number, TranslationRow>();
  const ids = [...new Set(wikiids)];
  if (ids.length === 0) return out;
  const rows = await db.selectFrom('wiki_translations').selectAll().where('langid', '=', langid).where('wikiid', 'in', ids).execute();
  for (const r of rows) out.set(r.wikiid, r);
  return out;
}

/** The texts a reader asking for `langid` gets: the translation when there is one, else the source. */
export async function textsFor(db: Kysely<Database>, wiki: WikiRow, langid: string | undefined): Promise<WikiTexts> {
  if (!langid || langid === wiki.langid) return sourceTexts(wiki);
  const t = (await translationsOf(db, [wiki.wikiid], langid)).get(wiki.wikiid);
  return t ? translationTexts(t) : sourceTexts(wiki);
}

export const displayTitle = (w: { title: string }, texts: { display_title: string }) => texts.display_title || w.title;

/**
 * The excerpt of a wiki text (light records' `text`): its plain text, at most 200
 * characters. Computed once when a text is written (stored in `excerpt` beside
 * `contents_raw`), with the linear parser: never at read time.
 */
export function plainExcerpt(raw: string, max = 200): string {
  return plainText(wikiToDoc(raw), max);
}

/** The columns to write with a wiki text: the text and its excerpt, so they never disagree. */
export function withExcerpt<T extends { contents_raw: string }>(texts: T): T & { excerpt: string } {
  return { ...texts, excerpt: plainExcerpt(texts.contents_raw) };
}

/** Light records for wikis already read, in `langid` where translated: two batched queries. */
export async function lightRecords(db: Kysely<Database>, config: Config, rows: WikiRow[], langid?: string): Promise<WikiLight[]> {
  const [translations, images] = await Promise.all([
    langid ? translationsOf(db, rows.filter((r) => r.langid !== langid).map((r) => r.wikiid), langid) : Promise.resolve(new Map<number, TranslationRow>()),
    loadImageObjects(db, config, rows.map((r) => r.imageid)),
  ]);
  return rows.map((w) => {
    const tr = translations.get(w.wikiid);
    const texts = tr ? translationTexts(tr) : sourceTexts(w);
    return {
      dataType: 'wiki' as const,
      wikiid: w.wikiid,
      title: w.title,
      display_title: displayTitle(w, texts),
      namespace: w.namespace,
      summary: texts.summary,
      url: wikiUrl(config, w.namespace, w.title),
      text: tr ? tr.excerpt : w.excerpt,
      image: w.imageid ? images.get(w.imageid) ?? null : null,
    };
  });
}

/** Light records by (wikiid, langid), e.g. for search hits; a key whose wiki is gone is left out. */
export async function loadLightWikis(db: Kysely<Database>, config: Config, keys: Array<{ wikiid: number; langid: string }>): Promise<Map<string, WikiLight>> {
  const out = new Map<string, WikiLight>();
  if (keys.length === 0) return out;
  const rows = await db.selectFrom('wikis').selectAll().where('wikiid', 'in', [...new Set(keys.map((k) => k.wikiid))]).execute();
  const byId = new Map(rows.map((r) => [r.wikiid, r]));
  const byLang = new Map<string, WikiRow[]>();
  for (const k of keys) {
    const w = byId.get(k.wikiid);
    if (!w) continue;
    const list = byLang.get(k.langid) ?? [];
    list.push(w);
    byLang.set(k.langid, list);
  }
  for (const [langid, list] of byLang) {
    const records = await lightRecords(db, config, list, langid);
    records.forEach((r) => out.set(`${r.wikiid}:${langid}`, r));
  }
  return out;
}

/** Direct child categories' rows, alphabetically. */
export function categoryChildren(db: Kysely<Database>, wikiid: number) {
  return db.selectFrom('wikis').selectAll().where('namespace', '=', 'CATEGORY').where('parentid', '=', wikiid).orderBy('title').orderBy('wikiid');
}

/** wikiids from `wikiid` up to the top (itself first). Bounded, so a corrupt loop cannot hang. */
export async function categoryAncestors(db: Kysely<Database>, wikiid: number): Promise<number[]> {
  const out: number[] = [];
  let current: number | null = wikiid;
  while (current !== null && out.length < 1000 && !out.includes(current)) {
    out.push(current);
    const row: { parentid: number | null } | undefined = await db.selectFrom('wikis').select('parentid').where('wikiid', '=', current).executeTakeFirst();
    current = row?.parentid ?? null;
  }
  return out;
}

/**
 * Who may create, edit, tag, release and delete a wiki of a namespace: Admins always;
 * INFO only Admins; TEAM the team's owner and leads; USER the user themself; CATEGORY,
 * ITEM and WIKI Authors.
 */
export async function canEditWiki(db: Kysely<Database>, user: AuthUser | null, namespace: string, title: string): Promise<boolean> {
  if (!user) return false;
  if (isAdmin(user)) return true;
  switch (namespace) {
    case 'INFO': return false;
    case 'TEAM': return /^\d+$/.test(title) && isTeamLead(db, user.userid, Number(title));
    case 'USER': return title === String(user.userid);
    default: return hasPrivilege(user, 'Author');
  }
}

/** A page of the titles of a namespace, alphabetically. */
export async function namespaceTitles(db: Kysely<Database>, namespace: string, page: { offset: number; limit: number }): Promise<string[]> {
  const rows = await db.selectFrom('wikis').select('title').where('namespace', '=', namespace).orderBy('title').limit(page.limit).offset(page.offset).execute();
  return rows.map((r) => r.title);
}

/** A page of a namespace's wikis by wikiid; `modifiedSince`: changed since (in `langid`'s translation too, when given). */
export function listWikis(db: Kysely<Database>, namespace: string, q: { offset: number; limit: number; modifiedSince?: number; langid?: string }) {
  let query = db.selectFrom('wikis').selectAll('wikis').where('wikis.namespace', '=', namespace);
  if (q.modifiedSince !== undefined) {
    const since = q.modifiedSince;
    if (q.langid) {
      const lang = q.langid;
      query = query.leftJoin('wiki_translations as t', (j) => j.onRef('t.wikiid', '=', 'wikis.wikiid').on('t.langid', '=', lang))
        .where((eb) => eb.or([eb('wikis.modified_date', '>=', since), eb('t.modified_date', '>=', since)]));
    } else {
      query = query.where('wikis.modified_date', '>=', since);
    }
  }
  return query.orderBy('wikis.wikiid').limit(q.limit).offset(q.offset).execute();
}

/** A kept revision of the wiki (any language), or undefined. */
export function findWikiRevision(db: Kysely<Database>, wikiid: number, revisionid: number) {
  return db.selectFrom('wiki_revisions').selectAll().where('revisionid', '=', revisionid).where('wikiid', '=', wikiid).executeTakeFirst();
}

/** Whether the wiki has a translation into `langid`. */
export async function hasTranslation(db: Kysely<Database>, wikiid: number, langid: string): Promise<boolean> {
  return !!(await db.selectFrom('wiki_translations').select('langid').where('wikiid', '=', wikiid).where('langid', '=', langid).executeTakeFirst());
}

/** A page of the wiki's revisions, newest first (of one language when given). */
export function wikiRevisionRows(db: Kysely<Database>, wikiid: number, q: { langid?: string; offset: number; limit: number }) {
  let sel = db.selectFrom('wiki_revisions').select(['revisionid', 'langid', 'action', 'userid', 'date', 'display_title']).where('wikiid', '=', wikiid);
  if (q.langid) sel = sel.where('langid', '=', q.langid);
  return sel.orderBy('revisionid', 'desc').limit(q.limit).offset(q.offset).execute();
}

export function findWikiRelease(db: Kysely<Database>, releaseid: number) {
  return db.selectFrom('wiki_releases').selectAll().where('releaseid', '=', releaseid).executeTakeFirst();
}
