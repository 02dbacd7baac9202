// Recipes for the assessments routes (quizzes, sign-offs, skills): bodies and paths the
// generator cannot guess (a quiz attached to a guide the caller reads, an open session of
// the caller, a sign-off stage assigned to them, a trainer's credentials), fresh per n where
// 50 creates at once must each make their own record.
import { unique } from '../../helpers/factories.js';
import { makeGuide } from '../../helpers/factories/guides.js';
import { makeWiki } from '../../helpers/factories/wikis.js';
import { createQuiz, attachQuiz } from '../../../src/areas/quizzes/quizzes.service.js';
import { nonMediaCount } from '../../../src/areas/quizzes/quizzes.scoring.js';
import { QUIZ_JSON, ALL_CORRECT } from '../../helpers/factories/assessments.js';
import type { Identity, World } from './world.js';

type Recipe = (world: World, caller: Identity | null, n: number) => Promise<{ body?: unknown; params?: Record<string, string> }>;
const anyUser = (w: World, c: Identity | null) => c ?? w.ids.user;

async function newQuiz(w: World): Promise<number> {
  return createQuiz(w.db, w.t.clock, w.ids.author.userid, { quiz_json: QUIZ_JSON, title: unique('Reliability quiz '), passing_score: 50, category: 'Reliability', non_media_count: nonMediaCount(QUIZ_JSON) });
}

const shared = new WeakMap<World, Promise<{ guideid: number; quizid: number }>>();
/** One public guide with a quiz attached, per world. */
function quizOnGuide(w: World) {
  if (!shared.has(w)) {
    shared.set(w, (async () => {
      const guide = await makeGuide(w.t, { ...w.ids.author, username: '' }, { public: true });
      const quizid = await newQuiz(w);
      await attachQuiz(w.db, w.t.clock, w.ids.author.userid, quizid, 'guide', guide.guideid);
      return { guideid: guide.guideid as number, quizid };
    })());
  }
  return shared.get(w)!;
}

async function quizOnFreshWiki(w: World) {
  const wiki = await makeWiki(w.t, { ...w.ids.author, username: '' });
  const quizid = await newQuiz(w);
  await attachQuiz(w.db, w.t.clock, w.ids.author.userid, quizid, 'wiki', wiki.wikiid);
  return { quizid, doctype: 'wiki', docid: wiki.wikiid as number };
}

/** A session of `userid` in progress on the shared quiz (inserted as such: any number may exist). */
async function openSession(w: World, userid: number): Promise<number> {
  const { guideid, quizid } = await quizOnGuide(w);
  const quiz = await w.db.selectFrom('quizzes').select('quiz_revisionid').where('quizid', '=', quizid).executeTakeFirstOrThrow();
  const now = w.t.clock.now();
  const row = await w.db.insertInto('quiz_sessions').values({ userid, quizid, quiz_revisionid: quiz.quiz_revisionid, doctype: 'guide', docid: guideid, langid: 'en', doc_revisionid: 1, response_json: '{}', init_date: now, last_modified: now, open: null })
    .returning('quiz_sessionid').executeTakeFirstOrThrow();
  return row.quiz_sessionid;
}

/** A fresh course whose one stage is a sign-off on the shared guide, signed by the team fixture, assigned to `userid`; answers its assessment id. */
async function signoffStage(w: World, userid: number): Promise<number> {
  const { guideid } = await quizOnGuide(w);
  const now = w.t.clock.now();
  const title = unique('Reliability sign-off course ');
  const { wikiid } = await w.db.insertInto('courses').values({ langid: 'en', title, title_lower: title.toLowerCase(), contents_raw: '', publish_date: null, userid: w.ids.admin.userid, created_date: now, modified_date: now, revisionid: 0 })
    .returning('wikiid').executeTakeFirstOrThrow();
  const { course_stageid } = await w.db.insertInto('course_stages').values({ wikiid, position: 0, doctype: 'guide', docid: guideid, assessmenttype: 'signoff', teamid_signer: w.teamid })
    .returning('course_stageid').executeTakeFirstOrThrow();
  await w.db.updateTable('course_stages').set({ stage_assessmentid: 5_000_000 + course_stageid }).where('course_stageid', '=', course_stageid).execute();
  await w.db.insertInto('course_assignments').values({ wikiid, assignee_userid: userid, assignee_teamid: null, userid_assigner: w.ids.admin.userid, due_within: null, created_date: now }).execute();
  return 5_000_000 + course_stageid;
}

/** A request of `trainee` on a fresh sign-off stage (answered by the team's member or lead when `answered`). */
async function signoffRequest(w: World, trainee: number, answered = false): Promise<number> {
  const assessment = await signoffStage(w, trainee);
  const stage = await w.db.selectFrom('course_stages').selectAll().where('stage_assessmentid', '=', assessment).executeTakeFirstOrThrow();
  const now = w.t.clock.now();
  const trainer = trainee === w.ids.member.userid ? w.ids.lead.userid : w.ids.member.userid;
  const row = await w.db.insertInto('signoff_requests').values({
    stage_assessmentid: assessment, course_stageid: stage.course_stageid, wikiid: stage.wikiid, doctype: 'guide', docid: stage.docid, doc_revisionid: null, teamid_signer: w.teamid,
    userid_requestor: trainee, userid_requestee: answered ? trainer : null, work_log_entryid: null, created_at: now, open: 1,
    ...(answered ? { response_value: 'pass', response_feedback: 'Reliability', response_type: 'direct', completed_at: now } : {}),
  }).returning('signoff_requestid').executeTakeFirstOrThrow();
  return row.signoff_requestid;
}

/** The trainer whose credentials sign for `trainee` (the team fixture's member, or its lead for the member). */
const trainerFor = (w: World, trainee: number) => (trainee === w.ids.member.userid ? w.ids.lead : w.ids.member);

export const ASSESSMENT_RECIPES: Record<string, Recipe> = {
  'POST /quizzes/import': async (_w, _c, n) => ({ body: { quiz_json: { ...QUIZ_JSON, title: `Reliability quiz ${n}` }, passing_score: 60, category: 'Reliability' } }),
  // An unattached quiz per n: deleting it changes no row count, each delete its own quiz.
  'POST /quizzes/delete': async (w) => ({ body: { quizids: [await newQuiz(w)] } }),
  // A fresh guide per n (the shared guide keeps its quiz for the session recipes).
  'POST /quizzes/attach/guide': async (w) => ({ body: { quizid: await newQuiz(w), guideid: (await makeGuide(w.t, { ...w.ids.author, username: '' })).guideid } }),
  // A fresh wiki per n: each attach its own attachment.
  'POST /quizzes/attach/wiki': async (w) => ({ body: { quizid: await newQuiz(w), wikiid: (await makeWiki(w.t, { ...w.ids.author, username: '' })).wikiid } }),
  // A fresh quiz on a fresh wiki per n: each save or submit its own session.
  'POST /quizzes/sessions/save': async (w) => ({ body: { ...(await quizOnFreshWiki(w)), response_json: JSON.stringify({ q1: 'red' }) } }),
  'POST /quizzes/sessions/submit': async (w) => ({ body: { ...(await quizOnFreshWiki(w)), response_json: JSON.stringify(ALL_CORRECT) } }),
  'POST /quizzes/sessions/cancel': async (w, c) => ({ body: { quiz_sessionid: await openSession(w, anyUser(w, c).userid) } }),
  'POST /quizzes/sessions/bulkCancel': async (w, c) => ({ body: { quiz_sessionids: [await openSession(w, anyUser(w, c).userid)] } }),
  'GET /quizzes/submissions/{sessionid}': async (w, c) => ({ params: { sessionid: String(await openSession(w, anyUser(w, c).userid)) } }),
  'POST /courses/stage-sign-offs/requests': async (w, c) => ({ body: { stage_assessmentid: await signoffStage(w, anyUser(w, c).userid) } }),
  'POST /courses/stage-sign-offs/{stage_assessmentid}/signers': async (w, c) => ({ params: { stage_assessmentid: String(await signoffStage(w, anyUser(w, c).userid)) }, body: {} }),
  'PATCH /courses/stage-sign-offs/responses': async (w) => ({ body: { signoff_requestid: await signoffRequest(w, w.ids.user.userid), response_value: 'pass', response_feedback: 'Watched it done right.' } }),
  'DELETE /stage-sign-offs/requests/{signoff_requestid}': async (w, c) => ({ params: { signoff_requestid: String(await signoffRequest(w, anyUser(w, c).userid)) } }),
  'PATCH /courses/stage-sign-offs/responses/{signoff_requestid}/acknowledge': async (w, c) => ({ params: { signoff_requestid: String(await signoffRequest(w, anyUser(w, c).userid, true)) } }),
  'POST /courses/stage-sign-offs/responses/{signoff_requestid}/initializeViaPassword': async (w, c) => {
    const trainee = anyUser(w, c).userid;
    const trainer = trainerFor(w, trainee);
    return { params: { signoff_requestid: String(await signoffRequest(w, trainee)) }, body: { login: trainer.email, password: trainer.password } };
  },
  'PUT /skills/weights': async () => ({ body: { top: { user: 0.5, management: 0.5 }, user: { training: 0.5, quiz: 0.3, practice: 0.2 } } }),
  // A fresh guide per n: 50 ratings at once are 50 ratings.
  'POST /skills/ratings/supervisor': async (w) => {
    const guide = await makeGuide(w.t, { ...w.ids.author, username: '' });
    return { body: { ratings: [{ userid: w.ids.member.userid, doctype: 'guide', docid: guide.guideid, rating: 0.5 }] } };
  },
  'POST /skills/ratings/supervisor/{doctype}/{docid}/{userid}': async (w) => ({ params: { doctype: 'guide', docid: String((await makeGuide(w.t, { ...w.ids.author, username: '' })).guideid), userid: String(w.ids.member.userid) }, body: { rating: 0.75 } }),
  'GET /skills/ratings/{doctype}/{docid}/{userid}': async (w) => ({ params: { doctype: 'guide', docid: String((await quizOnGuide(w)).guideid), userid: String(w.ids.member.userid) } }),
  'POST /skills/matrix': async (w) => ({ body: { userids: [w.ids.member.userid], guideids: [(await quizOnGuide(w)).guideid] } }),
};
