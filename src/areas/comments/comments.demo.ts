import type { DemoContext } from '../area.js';

/** Comments with replies on the INFO page, a category and a guide step, and a discussion post with answers. */
export async function seedCommentsDemo(ctx: DemoContext) {
  const { db, clock, users, ids } = ctx;
  const now = clock.now();
  const lang = ctx.config.languages[0];
  const comment = async (context: string, contextid: number, title: string, userid: number | undefined, text: string, parentid: number | null = null) =>
    (await db.insertInto('comments').values({ context, contextid, parentid, userid: userid ?? null, langid: lang, title, text_raw: text, date: now }).returning('commentid').executeTakeFirstOrThrow()).commentid;
  const about = ids['wiki:INFO:About'];
  if (about) {
    const c = await comment('info', about, 'About this site', users.user, 'Where do I report a broken link in a guide?');
    await comment('info', about, 'About this site', users.moderator, 'Leave a comment on the step with the link; we read every one.', c);
  }
  const pumps = ids['wiki:CATEGORY:Pumps'];
  if (pumps) {
    const c = await comment('wiki', pumps, 'Pumps', users.author, 'The CP-200 and DP-50 share the same o-ring size.');
    await comment('wiki', pumps, 'Pumps', users.user, 'Good to know, thanks! I will keep spares of the 40 mm ones.', c);
  }
  // A question on a step of the first public guide, answered by its author.
  const step = await db.selectFrom('guide_steps as s').innerJoin('guides as g', (j) => j.onRef('g.guideid', '=', 's.guideid').onRef('g.langid', '=', 's.langid'))
    .select(['s.stepid', 'g.title', 'g.userid']).where('g.public', '=', 1).where('g.deleted', '=', 0).where('g.langid', '=', lang)
    .orderBy('g.guideid').orderBy('s.orderby').limit(1).executeTakeFirst();
  if (step) {
    const c = await comment('step', step.stepid, step.title, users.user, 'Is a second person needed for this step?');
    await comment('step', step.stepid, step.title, step.userid, 'No, but tell the shift lead before you start.', c);
  }
  const post = await db.insertInto('posts').values({ userid: users.user ?? null, langid: lang, title: 'Which grease for the conveyor bearings?', text_raw: 'The guide says "bearing grease"; which one do we stock?', date: now }).returning('postid').executeTakeFirstOrThrow();
  const answer = await comment('post', post.postid, 'Which grease for the conveyor bearings?', users.author, 'We stock lithium complex grease, grade NLGI 2.');
  await comment('post', post.postid, 'Which grease for the conveyor bearings?', users.user, 'Found it in cabinet 3, thanks.', answer);
  ids['post:demo'] = post.postid;
  ctx.log('comments: threads on the About page, the Pumps category, a guide step and a discussion post');
}
