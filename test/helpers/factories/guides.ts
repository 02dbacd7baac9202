// Factories for the guides area: the wikis guides name (categories, parts and tools),
// images and videos for steps, and guides made over HTTP as a client would.
import { randomUUID } from 'node:crypto';
import type { TestApp } from '../app.js';
import { unique, type TestUser } from '../factories.js';

/** A CATEGORY wiki (inserted bare, as the wikis area may not have made it). */
export async function makeCategory(t: TestApp, title = unique('Category ')): Promise<string> {
  await t.db.insertInto('wikis').values({ namespace: 'CATEGORY', title }).onConflict((oc) => oc.columns(['namespace', 'title']).doNothing()).execute();
  return title;
}

/** An ITEM wiki (a part or a tool). */
export async function makeItem(t: TestApp, title = unique('Item ')): Promise<string> {
  await t.db.insertInto('wikis').values({ namespace: 'ITEM', title }).onConflict((oc) => oc.columns(['namespace', 'title']).doNothing()).execute();
  return title;
}

export async function makeImage(t: TestApp, userid: number | null = null): Promise<number> {
  const row = await t.db.insertInto('images').values({ guid: randomUUID(), userid, width: 800, height: 600, mime: 'image/jpeg', created_date: t.clock.now() }).returning('imageid').executeTakeFirstOrThrow();
  return row.imageid;
}

export async function makeVideo(t: TestApp, userid: number | null = null): Promise<number> {
  const row = await t.db.insertInto('videos').values({ guid: randomUUID(), userid, filename: 'clip.mp4', created_date: t.clock.now() }).returning('videoid').executeTakeFirstOrThrow();
  return row.videoid;
}

export interface GuideBody {
  type?: string;
  category?: string;
  title?: string;
  [key: string]: unknown;
}

/** A guide created over HTTP by `author` (an Author); answers the full record. */
export async function makeGuide(t: TestApp, author: TestUser, body: GuideBody = {}): Promise<any> {
  const category = body.category ?? (await makeCategory(t));
  const res = await t.post('/guides', { token: author.token, body: { type: 'replacement', title: unique('Guide '), ...body, category } });
  if (res.statusCode !== 201) throw new Error(`makeGuide: ${res.statusCode} ${res.body}`);
  return res.json();
}

export const line = (text: string, extra: Record<string, unknown> = {}) => ({ text, ...extra });

/** Adds a step over HTTP at the guide's current revision; answers the full guide. */
export async function addStep(t: TestApp, user: TestUser, guide: { guideid: number; revisionid: number }, body: Record<string, unknown> = {}): Promise<any> {
  const res = await t.post(`/guides/${guide.guideid}/steps?revisionid=${guide.revisionid}`, { token: user.token, body: { lines: [line('Do the thing')], ...body } });
  if (res.statusCode !== 201) throw new Error(`addStep: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** A public guide with `steps` steps. */
export async function makePublishedGuide(t: TestApp, author: TestUser, steps = 0, body: GuideBody = {}): Promise<any> {
  let g = await makeGuide(t, author, { public: true, ...body });
  for (let i = 0; i < steps; i++) g = await addStep(t, author, g, { title: `Step ${i + 1}`, lines: [line(`Line of step ${i + 1}`)] });
  return g;
}
