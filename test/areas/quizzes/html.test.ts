// A quiz's HTML (an html element, completedHtml) is sanitized with the allow-list of rendered
// wiki HTML (markup/sanitize.ts): on import, on a new revision, and by the migration
// 2026_12_04_1200_quiz_html_sanitized for the quizzes stored before.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAuthor, makeUser, type TestUser } from '../../helpers/factories.js';
import { QUIZ_JSON, importQuiz } from '../../helpers/factories/assessments.js';
import { renderWiki, sanitizeHtml, type MarkupResolver } from '../../../src/markup/index.js';
import { up as sanitizeStoredQuizzes } from '../../../src/db/migrations/2026_12_04_1200_quiz_html_sanitized.js';

let author: TestUser;
let learner: TestUser;
const t = appForFile({}, async () => {
  [author, learner] = await Promise.all([makeAuthor(t), makeUser(t)]);
});

const HOSTILE = '<p onclick="steal()">Read <b>the</b> <a href="javascript:alert(1)">guide</a> <a href="https://example.com/x?a=1" target="_blank">first</a>.</p>'
  + '<script>alert(document.cookie)</script><img src=x onerror=alert(1)><iframe src="https://evil.example"></iframe><style>body{}</style>'
  + '<svg><script>alert(2)</script></svg><a href="jav&#x61;script:alert(3)">x</a><!-- <script>alert(4)</script> --><strong>Mind</strong>';
const SAFE = '<p>Read the <a>guide</a> <a href="https://example.com/x?a&#61;1" target="_blank" rel="noopener">first</a>.</p><a>x</a><strong>Mind</strong>';
const dangerous = /<script|onerror|onclick|javascript:|<iframe|<style|<svg/i;

const htmlOf = (quiz: { quiz_json: { elements: Array<{ name: string; html?: unknown }>; completedHtml?: unknown } }) => quiz.quiz_json.elements.find((e) => e.name === 'intro')?.html;
const withHtml = (html: unknown, extra: Record<string, unknown> = {}) => ({ ...QUIZ_JSON, ...extra, elements: QUIZ_JSON.elements.map((e) => (e.name === 'intro' ? { ...e, html } : e)) });

describe('the sanitizer', () => {
  it('keeps the allowed elements and attributes, drops the rest with script-like content', () => {
    const out = sanitizeHtml(HOSTILE);
    expect(out).not.toMatch(dangerous);
    expect(out).toBe(SAFE);
    expect(sanitizeHtml('a < b & c &amp; d &eacute; <unknown>x</unknown> <p>open')).toBe('a &lt; b &amp; c &amp; d &eacute; x <p>open</p>');
    expect(sanitizeHtml('<a href="/&#x2F;evil.example">x</a><img src="//evil.example/i.png"><a href=" https://ok.example " title=\'t"x\'>y</a>'))
      .toBe('<a>x</a><a href="https://ok.example" title="t&quot;x">y</a>');
  });

  it('leaves rendered wiki HTML as it is: the allow-list is the renderer\'s', () => {
    const resolver: MarkupResolver = {
      image: (id) => ({ src: `/media/${id}.jpg`, width: 10, height: 20 }),
      video: (id) => ({ src: `/media/${id}.mp4`, poster: `/media/${id}.jpg`, sources: [{ src: `/media/${id}.webm`, type: 'video/webm' }] }),
      guide: (id) => ({ url: `/Guide/x/${id}`, title: `Guide ${id}` }),
    };
    const wiki = [
      '== Heading ==', "'''bold''' ''italic'' ++under++ ,,sub,, ^^sup^^ ``code`` ~~gone~~ a=b javascript: x",
      '[https://example.com/a?b=c|link] [https://example.com|new|new_window=true] [/Wiki/Page|rel] [mailto:a@b.example|mail]',
      '[guide|12] [guide|13|named|new_window=true] [link|/Wiki/Other|other]', '* one\n** two\n# three', '[code]if (a < b) {}[/code]',
      '[quote|Someone|format=callout]quoted[/quote]', '[image|5|align=left|size=medium] [video|6] [image|7]', 'line[br]\nbreak "quotes" & \'apostrophes\'',
    ].join('\n\n');
    const html = renderWiki(wiki, resolver);
    expect(html).toContain('<img');
    expect(html).toContain('<video');
    expect(html).toContain('target="_blank"');
    expect(sanitizeHtml(html)).toBe(html);
  });
});

describe('quiz html on import, revision and read', () => {
  it('an import stores and serves the html sanitized, to learners and Authors alike', async () => {
    const quiz = await importQuiz(t, author, { quiz_json: withHtml(HOSTILE, { completedHtml: '<p>Done<script>x()</script></p>' }) });
    expect(htmlOf(quiz)).toBe(SAFE);
    expect(quiz.quiz_json.completedHtml).toBe('<p>Done</p>');
    const stored = await t.db.selectFrom('quiz_revisions').select('quiz_json').where('quiz_revisionid', '=', quiz.quiz_revisionid).executeTakeFirstOrThrow();
    expect(stored.quiz_json).not.toMatch(dangerous);
    const read = (await t.get(`/quizzes/${quiz.quizid}`, { token: learner.token })).json();
    expect(htmlOf(read)).toBe(SAFE);
  });

  it('a new revision is sanitized too, localized html included', async () => {
    const quiz = await importQuiz(t, author);
    const res = await t.post('/quizzes/import', { token: author.token, body: { quizid: quiz.quizid, quiz_revisionid: quiz.quiz_revisionid, quiz_json: withHtml({ default: HOSTILE, de: '<p>Lies<img src=x onerror=alert(1)></p>' }) } });
    expect(res.statusCode, res.body).toBe(201);
    expect(htmlOf(res.json())).toEqual({ default: SAFE, de: '<p>Lies</p>' });
  });
});

describe('migration 2026_12_04_1200_quiz_html_sanitized', () => {
  it('sanitizes the html of the quiz revisions stored before it, and leaves clean ones as they are', async () => {
    const quiz = await importQuiz(t, author);
    const clean = await importQuiz(t, author);
    const cleanBefore = await t.db.selectFrom('quiz_revisions').select('quiz_json').where('quiz_revisionid', '=', clean.quiz_revisionid).executeTakeFirstOrThrow();
    // as stored before imports sanitized
    await t.db.updateTable('quiz_revisions').set({ quiz_json: JSON.stringify(withHtml(HOSTILE, { completedHtml: '<p onmouseover="x()">Done</p>' })) })
      .where('quiz_revisionid', '=', quiz.quiz_revisionid).execute();
    expect(htmlOf((await t.get(`/quizzes/${quiz.quizid}`, { token: learner.token })).json())).toBe(HOSTILE);

    await sanitizeStoredQuizzes(t.db as never);
    const read = (await t.get(`/quizzes/${quiz.quizid}`, { token: learner.token })).json();
    expect(htmlOf(read)).toBe(SAFE);
    expect(read.quiz_json.completedHtml).toBe('<p>Done</p>');
    expect(read.quiz_json.elements.map((e: { name: string }) => e.name)).toEqual(QUIZ_JSON.elements.map((e) => e.name));
    const cleanAfter = await t.db.selectFrom('quiz_revisions').select('quiz_json').where('quiz_revisionid', '=', clean.quiz_revisionid).executeTakeFirstOrThrow();
    expect(cleanAfter.quiz_json).toBe(cleanBefore.quiz_json);
  });
});
