// Frozen in time: never edit a migration that has landed; add a new one.
// The search index (see src/db/search.ts) and what feeds it so far: wikis in their
// source language, wiki translations, users, and comments (a hit on a comment leads to
// the wiki or guide it is on; the step context is added with the guides).
import type { Kysely } from 'kysely';
import { createSearchIndex, createSearchSource, dropSearchIndex, dropSearchSource, type SearchSource } from '../search.js';

const wikiTitle = `case when @display_title <> '' then @display_title else @title end`;

export const wikiSource: SearchSource = {
  name: 'wikis', table: 'wikis', kind: 'wiki',
  docid: '@wikiid', langid: '@langid', namespace: '@namespace',
  title: wikiTitle,
  body: `@title || ' ' || @summary || ' ' || @contents_raw`,
  visible: '1',
  targetType: `'wiki'`, targetId: '@wikiid', targetLangid: '@langid',
  watch: ['namespace', 'title', 'langid', 'display_title', 'summary', 'contents_raw'],
};

export const wikiTranslationSource: SearchSource = {
  name: 'wiki_translations', table: 'wiki_translations', kind: 'wiki',
  docid: '@wikiid', langid: '@langid',
  namespace: '(select w.namespace from wikis w where w.wikiid = @wikiid)',
  title: '@display_title',
  body: `(select w.title from wikis w where w.wikiid = @wikiid) || ' ' || @summary || ' ' || @contents_raw`,
  visible: '1',
  targetType: `'wiki'`, targetId: '@wikiid', targetLangid: '@langid',
  watch: ['wikiid', 'langid', 'display_title', 'summary', 'contents_raw'],
};

export const userSource: SearchSource = {
  name: 'users', table: 'users', kind: 'user',
  docid: '@userid', langid: `''`, namespace: `''`,
  title: '@username',
  body: `coalesce(@unique_username, '')`,
  visible: 'case when @enabled = 1 then 1 else 0 end',
  targetType: `'user'`, targetId: '@userid', targetLangid: `''`,
  watch: ['username', 'unique_username', 'enabled'],
};

/** A wiki comment leads to the wiki in the comment's language when it has that translation. */
const wikiCommentLang = `case when exists (select 1 from wiki_translations tr where tr.wikiid = @contextid and tr.langid = @langid)
  then @langid else (select w.langid from wikis w where w.wikiid = @contextid) end`;

export const commentSource: SearchSource = {
  name: 'comments', table: 'comments', kind: 'comment',
  docid: '@commentid', langid: '@langid', namespace: `''`,
  title: `''`,
  body: `@title || ' ' || @text_raw`,
  visible: '1',
  targetType: `case when @context in ('wiki', 'info') then 'wiki' when @context = 'guide' then 'guide' else null end`,
  targetId: `case when @context in ('wiki', 'info', 'guide') then @contextid else null end`,
  targetLangid: `case when @context in ('wiki', 'info') then ${wikiCommentLang} when @context = 'guide' then @langid else null end`,
  watch: ['context', 'contextid', 'langid', 'title', 'text_raw'],
};

export async function up(db: Kysely<any>): Promise<void> {
  await createSearchIndex(db);
  for (const s of [wikiSource, wikiTranslationSource, userSource, commentSource]) await createSearchSource(db, s);
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const s of [commentSource, userSource, wikiTranslationSource, wikiSource]) await dropSearchSource(db, s);
  await dropSearchIndex(db);
}
