// Row loaders of the quizzes area: no decisions about who may see what.
import { sql, type Kysely, type Selectable } from 'kysely';
import { overseenUserIds } from '../shared/oversight.js';
import { containsInsensitive, likeEscape } from '../../db/helpers.js';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import type { GuideTable } from '../guides/guides.tables.js';
import type { QuizSessionTable, QuizTable } from './quizzes.tables.js';

export type Db = Kysely<Database>;
export type QuizRow = Selectable<QuizTable>;
export type SessionRow = Selectable<QuizSessionTable>;

export const findQuiz = (db: Db, quizid: number) => db.selectFrom('quizzes').selectAll().where('quizid', '=', quizid).executeTakeFirst();

export const findSession = (db: Db, id: number) => db.selectFrom('quiz_sessions').selectAll().where('quiz_sessionid', '=', id).executeTakeFirst();

/** The quizzes named, with the revision asked for (default each one's current), in one query each. */
export async function quizzesWithRevisions(db: Db, quizids: number[], revisionOf: Map<number, number> = new Map()) {
  if (!quizids.length) return [];
  const quizzes = await db.selectFrom('quizzes').selectAll().where('quizid', 'in', quizids).execute();
  const revids = quizzes.map((q) => revisionOf.get(q.quizid) ?? q.quiz_revisionid);
  const revisions = revids.length ? await db.selectFrom('quiz_revisions').selectAll().where('quiz_revisionid', 'in', revids).execute() : [];
  const revById = new Map(revisions.map((r) => [r.quiz_revisionid, r]));
  const attachments = await db.selectFrom('quiz_attachments').select(['quizid', 'doctype', 'docid']).where('quizid', 'in', quizids).orderBy('doctype').orderBy('docid').execute();
  return quizzes.flatMap((q) => {
    const rev = revById.get(revisionOf.get(q.quizid) ?? q.quiz_revisionid);
    if (!rev || rev.quizid !== q.quizid) return [];
    return [{ quiz: q, revision: rev, documents: attachments.filter((a) => a.quizid === q.quizid).map((a) => ({ doctype: a.doctype as 'guide' | 'wiki', docid: a.docid })) }];
  });
}
export type QuizWithRevision = Awaited<ReturnType<typeof quizzesWithRevisions>>[number];

/** The quiz attached to each document named. */
export async function attachedQuizzes(db: Db, docs: Array<{ doctype: string; docid: number }>) {
  if (!docs.length) return [];
  return db.selectFrom('quiz_attachments as a').innerJoin('quizzes as q', 'q.quizid', 'a.quizid')
    .select(['a.doctype', 'a.docid', 'a.quizid']).where('q.deleted', '=', 0)
    .where((eb) => eb.or(docs.map((d) => eb.and([eb('a.doctype', '=', d.doctype), eb('a.docid', '=', d.docid)]))))
    .execute();
}

/** A document a quiz is taken on: a guide in one language, or a wiki. */
export interface QuizDoc {
  doctype: 'guide' | 'wiki';
  docid: number;
  langid: string;
  revisionid: number;
  title: string;
  guideRow?: Selectable<GuideTable>;
}

/** The document named (a guide in `langid`, default the site's language, else its first); undefined when there is none. */
export async function loadDoc(db: Db, config: Config, doctype: 'guide' | 'wiki', docid: number, langid?: string): Promise<QuizDoc | undefined> {
  if (doctype === 'wiki') {
    const w = await db.selectFrom('wikis').select(['wikiid', 'langid', 'revisionid', 'title', 'display_title']).where('wikiid', '=', docid).executeTakeFirst();
    if (!w || (langid && langid !== w.langid)) return undefined;
    return { doctype, docid, langid: w.langid, revisionid: w.revisionid, title: w.display_title || w.title };
  }
  const rows = await db.selectFrom('guides').selectAll().where('guideid', '=', docid).where('deleted', '=', 0).orderBy('langid').execute();
  const row = langid ? rows.find((r) => r.langid === langid) : rows.find((r) => r.langid === config.languages[0]) ?? rows[0];
  if (!row) return undefined;
  return { doctype, docid, langid: row.langid, revisionid: row.revisionid, title: row.title, guideRow: row };
}

/** Submitted sessions (not cancelled) of a user on a quiz and document: the attempts used. */
export async function attemptsUsed(db: Db, userid: number, quizid: number, doctype: string, docid: number): Promise<number> {
  const r = await db.selectFrom('quiz_sessions').select((eb) => eb.fn.countAll<number>().as('n'))
    .where('userid', '=', userid).where('quizid', '=', quizid).where('doctype', '=', doctype).where('docid', '=', docid)
    .where('end_date', 'is not', null).where('cancelled', '=', 0).executeTakeFirstOrThrow();
  return Number(r.n);
}

export type QuizTableRow = QuizRow;

export interface ListParams {
  offset: number;
  limit: number;
  order: 'ASC' | 'DESC';
  sort: 'guideid' | 'category' | 'quiz_title' | 'guide_title' | 'release_date' | 'sessions_submitted';
  category?: string;
  search?: string;
}

/**
 * A page of quiz list entries (quizzes not deleted). A quiz's guide is the first guide it
 * is attached to; its title is that guide's in the site's language (else its first), and
 * its release version the newest release not removed.
 */
export async function listQuizEntries(db: Db, config: Config, p: ListParams) {
  const guideid = sql<number | null>`(select min(a.docid) from quiz_attachments a where a.quizid = q.quizid and a.doctype = 'guide')`;
  const guideTitle = sql<string | null>`(select g.title from guides g where g.guideid = ${guideid} order by case when g.langid = ${config.languages[0]} then 0 else 1 end, g.langid limit 1)`;
  const sortColumn = {
    guideid, category: sql`q.category`, quiz_title: sql`lower(q.title)`, guide_title: sql`lower(${guideTitle})`, release_date: sql`q.released_date`, sessions_submitted: sql`q.sessions_submitted`,
  }[p.sort];
  const dir = p.order === 'ASC' ? sql`asc` : sql`desc`;
  let q = db.selectFrom('quizzes as q').where('q.deleted', '=', 0)
    .select(['q.quizid', 'q.title', 'q.category', 'q.released_date', 'q.sessions_submitted', guideid.as('guideid'), guideTitle.as('guide_title')]);
  if (p.category !== undefined) q = q.where('q.category', '=', p.category);
  if (p.search) {
    const pattern = '%' + likeEscape(p.search.toLowerCase()) + '%';
    q = q.where((eb) => eb.or([
      containsInsensitive('q.title', p.search!),
      eb.exists(eb.selectFrom('quiz_attachments as a').innerJoin('guides as g', 'g.guideid', 'a.docid').select('a.quizid')
        .whereRef('a.quizid', '=', 'q.quizid').where('a.doctype', '=', 'guide').where(sql<boolean>`lower(g.title) like ${pattern} escape '\\'`)),
    ]));
  }
  const rows = await q.orderBy(sql`${sortColumn} ${dir}`).orderBy('q.quizid', p.order === 'ASC' ? 'asc' : 'desc').limit(p.limit).offset(p.offset).execute();
  const guideids = [...new Set(rows.map((r) => r.guideid).filter((g): g is number => g !== null))];
  const releases = guideids.length ? await db.selectFrom('guide_releases').select(['guideid', 'version', 'releaseid'])
    .where('guideid', 'in', guideids).where('status', '=', 'released').orderBy('releaseid', 'desc').execute() : [];
  return rows.map((r) => ({
    quizid: r.quizid,
    quiz_title: r.title,
    guideid: r.guideid === null ? null : Number(r.guideid),
    guide_title: r.guide_title,
    guide_release_version: releases.find((x) => x.guideid === Number(r.guideid))?.version ?? null,
    quizzes_submitted: Number(r.sessions_submitted),
    category: r.category,
    quiz_last_released: Number(r.released_date),
  }));
}

/** Every category of a quiz, deleted and disabled ones included. */
export async function quizCategories(db: Db) {
  const rows = await db.selectFrom('quizzes').select('category').distinct().where('category', '!=', '').orderBy('category').execute();
  return rows.map((r) => ({ name: r.category }));
}

/** A page of sessions, newest first, with the quiz title and the user's name; `users` limits whose (a subquery or list), undefined: anyone's. */
export async function listSessions(db: Db, p: { offset: number; limit: number; userid?: number; quizid?: number; query?: string; onlyUsers?: 'self' | 'led' | 'all'; viewer: number }) {
  let q = db.selectFrom('quiz_sessions as s').innerJoin('quizzes as q', 'q.quizid', 's.quizid').innerJoin('users as u', 'u.userid', 's.userid')
    .selectAll('s').select(['q.title as quiz_title', 'u.username']);
  if (p.userid !== undefined) q = q.where('s.userid', '=', p.userid);
  if (p.onlyUsers === 'self') q = q.where('s.userid', '=', p.viewer);
  if (p.onlyUsers === 'led') {
    q = q.where((eb) => eb.or([eb('s.userid', '=', p.viewer), eb('s.userid', 'in', overseenUserIds(db, { userid: p.viewer }))]));
  }
  if (p.quizid !== undefined) q = q.where('s.quizid', '=', p.quizid);
  if (p.query) q = q.where(containsInsensitive('q.title', p.query));
  return q.orderBy('s.quiz_sessionid', 'desc').limit(p.limit).offset(p.offset).execute();
}
