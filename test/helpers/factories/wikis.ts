// Factories of the wikis, comments and view-history areas: through the API, as a client would.
import { expect } from 'vitest';
import type { TestApp } from '../app.js';
import { unique, type TestUser } from '../factories.js';

export interface WikiInput {
  namespace?: string;
  title?: string;
  contents?: string;
  [field: string]: unknown;
}

/** Creates a wiki (default: a WIKI page with a unique title) and answers its full record. */
export async function makeWiki(t: TestApp, user: TestUser, input: WikiInput = {}) {
  const body = { namespace: 'WIKI', title: unique('Wiki '), contents: 'Some contents.', ...input };
  const res = await t.post('/wikis', { token: user.token, body });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

export const makeCategory = (t: TestApp, user: TestUser, title = unique('Category '), input: WikiInput = {}) =>
  makeWiki(t, user, { namespace: 'CATEGORY', title, ...input });

/** Posts a comment (or a reply with `parentid`) and answers the record. */
export async function makeComment(t: TestApp, user: TestUser, context: string, contextid: number, body: Record<string, unknown> = {}) {
  const res = await t.post(`/comments/${context}/${contextid}`, { token: user.token, body: { text: 'A helpful comment text.', ...body } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

export async function makePost(t: TestApp, user: TestUser, body: Record<string, unknown> = {}) {
  const res = await t.post('/posts', { token: user.token, body: { title: unique('Post '), text: 'What do you think?', ...body } });
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

/** A path segment for a wiki title. */
export const enc = (title: string) => encodeURIComponent(title);
