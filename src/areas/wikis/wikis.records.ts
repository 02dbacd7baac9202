// The full wiki record, built from a row and the texts of the language returned.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import type { AuthUser } from '../../http/auth.js';
import { toBool } from '../../db/helpers.js';
import { wikiToDoc } from '../../markup/index.js';
import { loadImageObjects } from '../media/image-object.js';
import { tagsOf } from '../tags/tags.queries.js';
import { loadUserSummaries } from '../users/users.queries.js';
import { findTeam, toTeamSummaries } from '../teams/teams.queries.js';
import { renderWikiTexts } from '../content/render.js';
import { categoryGuides } from './category-guides.js';
import { canEditWiki, categoryChildren, displayTitle, wikiUrl, type WikiRow, type WikiTexts } from './wikis.queries.js';
import type { Supplier, WikiFull, WikiRelease } from './wikis.schemas.js';
import type { Selectable } from 'kysely';
import type { WikiReleaseTable } from './wikis.tables.js';

export function parseSuppliers(json: string): Supplier[] {
  try {
    const v = JSON.parse(json);
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
}

export async function fullRecord(db: Kysely<Database>, config: Config, wiki: WikiRow, texts: WikiTexts, caller: AuthUser | null): Promise<WikiFull> {
  const isCategory = wiki.namespace === 'CATEGORY';
  const [rendered, images, tags, translations, authors, canEdit] = await Promise.all([
    renderWikiTexts(db, config, isCategory ? [texts.contents_raw, texts.identification_raw] : [texts.contents_raw]),
    loadImageObjects(db, config, [wiki.imageid]),
    tagsOf(db, 'wiki', wiki.wikiid),
    db.selectFrom('wiki_translations').select('langid').where('wikiid', '=', wiki.wikiid).orderBy('langid').execute(),
    loadUserSummaries(db, config, [wiki.userid]),
    canEditWiki(db, caller, wiki.namespace, wiki.title),
  ]);
  const url = wikiUrl(config, wiki.namespace, wiki.title);
  const lang = `langid=${encodeURIComponent(texts.langid)}`;
  const record: WikiFull = {
    wikiid: wiki.wikiid,
    langid: texts.langid,
    url,
    fullUrl: `${url}?${lang}`,
    editUrl: `${url}?${lang}&revisionid=${texts.revisionid}`,
    namespace: wiki.namespace,
    title: wiki.title,
    revisionid: texts.revisionid,
    contents_raw: texts.contents_raw,
    contents_json: wikiToDoc(texts.contents_raw),
    contents_rendered: rendered[0],
    display_title: displayTitle(wiki, texts),
    description: texts.summary,
    image: wiki.imageid ? images.get(wiki.imageid) ?? null : null,
    table_of_contents: toBool(wiki.table_of_contents),
    source_langid: wiki.langid,
    translations: [wiki.langid, ...translations.map((t) => t.langid).filter((l) => l !== wiki.langid)],
    tags,
    author: wiki.userid ? authors.get(wiki.userid) ?? null : null,
    created_date: wiki.created_date,
    modified_date: texts.modified_date,
    can_edit: canEdit,
  };
  switch (wiki.namespace) {
    case 'CATEGORY': {
      const [parent, children, guides] = await Promise.all([
        wiki.parentid ? db.selectFrom('wikis').select('title').where('wikiid', '=', wiki.parentid).executeTakeFirst() : Promise.resolve(undefined),
        categoryChildren(db, wiki.wikiid).execute(),
        categoryGuides(db, config, wiki.title, texts.langid, { offset: 0, limit: 20 }),
      ]);
      record.parent = parent?.title ?? null;
      record.children = children.map((c) => c.title);
      record.guides = guides;
      record.stub = toBool(wiki.stub);
      record.identification_raw = texts.identification_raw;
      record.identification_rendered = rendered[1];
      break;
    }
    case 'ITEM':
      record.item_type = (wiki.item_type as 'part' | 'tool' | null) ?? null;
      record.suppliers = parseSuppliers(wiki.suppliers);
      break;
    case 'TEAM': {
      const team = /^\d+$/.test(wiki.title) ? await findTeam(db, Number(wiki.title)) : undefined;
      record.team = team ? (await toTeamSummaries(db, config, [team]))[0] : null;
      break;
    }
    case 'USER': {
      const users = /^\d+$/.test(wiki.title) ? await loadUserSummaries(db, config, [Number(wiki.title)]) : new Map();
      record.user = users.get(Number(wiki.title)) ?? null;
      break;
    }
  }
  return record;
}

export type ReleaseRow = Selectable<WikiReleaseTable>;

export async function releaseRecords(db: Kysely<Database>, config: Config, rows: ReleaseRow[]): Promise<WikiRelease[]> {
  const [users, wikis] = await Promise.all([
    loadUserSummaries(db, config, rows.map((r) => r.userid)),
    rows.length ? db.selectFrom('wikis').select(['wikiid', 'namespace', 'title']).where('wikiid', 'in', [...new Set(rows.map((r) => r.wikiid))]).execute() : Promise.resolve([]),
  ]);
  const byId = new Map(wikis.map((w) => [w.wikiid, w]));
  return rows.map((r) => {
    const w = byId.get(r.wikiid);
    const base = w ? wikiUrl(config, w.namespace, w.title) : `${config.publicUrl}/api/2.0/wikis`;
    return {
      releaseid: r.releaseid,
      guideid: null,
      wikiid: r.wikiid,
      langid: r.langid,
      revisionid: r.revisionid,
      user: r.userid ? users.get(r.userid) ?? null : null,
      status: r.status as 'released' | 'removed',
      title: r.title,
      init_date: r.init_date,
      release_date: r.release_date,
      notes: r.notes,
      type: r.type as 'major' | 'minor',
      href: `${base}?langid=${encodeURIComponent(r.langid)}&revisionid=${r.revisionid}`,
      version: r.version,
    };
  });
}
