// Frozen in time: never edit a migration that has landed; add a new one.
// Guides join the search index (src/db/search.ts): a guide in one language (title,
// subject, summary, category, introduction, conclusion; found only while public and not
// deleted) and each step's title, which leads to its guide. Step lines are not indexed:
// they would multiply the index by the number of lines, and a guide is found by its
// words above. Comments on guides and steps now lead to the guide (the comment source
// of migration 1130 is replaced: steps had no target before).
import type { Kysely } from 'kysely';
import { createSearchSource, dropSearchSource, type SearchSource } from '../search.js';
import { commentSource as commentSourceBefore } from './2026_11_22_1130_search.js';

export const guideSource: SearchSource = {
  name: 'guides', table: 'guides', kind: 'guide',
  docid: '@guideid', langid: '@langid', namespace: `''`,
  title: '@title',
  body: `@subject || ' ' || @summary || ' ' || @category || ' ' || @introduction || ' ' || @conclusion`,
  visible: 'case when @public = 1 and @deleted = 0 then 1 else 0 end',
  targetType: `'guide'`, targetId: '@guideid', targetLangid: '@langid',
  watch: ['guideid', 'langid', 'title', 'subject', 'summary', 'category', 'introduction', 'conclusion', 'public', 'deleted'],
};

export const stepSource: SearchSource = {
  name: 'guide_steps', table: 'guide_steps', kind: 'step',
  docid: '@stepid', langid: '@langid', namespace: `''`,
  title: `''`,
  body: '@title',
  visible: '1',
  targetType: `'guide'`, targetId: '@guideid', targetLangid: '@langid',
  watch: ['guideid', 'langid', 'title'],
};

/** A guide comment leads to the guide in the comment's language when it has that translation. */
const guideCommentLang = `case when exists (select 1 from guides g where g.guideid = @contextid and g.langid = @langid)
  then @langid else (select min(g.langid) from guides g where g.guideid = @contextid) end`;
const wikiCommentLang = `case when exists (select 1 from wiki_translations tr where tr.wikiid = @contextid and tr.langid = @langid)
  then @langid else (select w.langid from wikis w where w.wikiid = @contextid) end`;

export const commentSource: SearchSource = {
  ...commentSourceBefore,
  targetType: `case when @context in ('wiki', 'info') then 'wiki' when @context in ('guide', 'step') then 'guide' else null end`,
  targetId: `case when @context in ('wiki', 'info', 'guide') then @contextid
    when @context = 'step' then (select s.guideid from guide_steps s where s.stepid = @contextid) else null end`,
  targetLangid: `case when @context in ('wiki', 'info') then ${wikiCommentLang} when @context = 'guide' then ${guideCommentLang}
    when @context = 'step' then (select s.langid from guide_steps s where s.stepid = @contextid) else null end`,
};

export async function up(db: Kysely<any>): Promise<void> {
  await createSearchSource(db, guideSource);
  await createSearchSource(db, stepSource);
  await dropSearchSource(db, commentSourceBefore);
  await createSearchSource(db, commentSource);
}

export async function down(db: Kysely<any>): Promise<void> {
  await dropSearchSource(db, commentSource);
  await createSearchSource(db, commentSourceBefore);
  for (const s of [stepSource, guideSource]) {
    await dropSearchSource(db, s);
    await db.deleteFrom('search_docs').where('kind', '=', s.kind).execute();
  }
}
