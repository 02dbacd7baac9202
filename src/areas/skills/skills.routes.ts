// Skills: the rating of a user on a document from training, quizzes, practice, sign-offs and
// a supervisor (skills.model.ts, one pure function; its inputs loaded in batches by
// skills.queries.ts), the weights, supervisor ratings, breakdowns, the skills matrix, and
// ratings of course and guide assignees. Who may do what: skills.access.ts.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errorResponses, Id } from '../../http/schemas.js';
import { notFound, unprocessable, type FieldError } from '../../http/errors.js';
import { requireUser, type AuthUser } from '../../http/auth.js';
import { forbiddenUnless } from '../../http/policy.js';
import { guideRowReadable } from '../guides/guides.access.js';
import {
  CourseAssigneesRatings, GuideAssigneesRatings, MatrixBody, OneSupervisorBody, PageQuery, RatingParams, SkillBreakdown, SkillsMatrix, SkillWeights,
  SupervisorBody, SupervisorRating, TeamCourse, WeightsPut,
} from './skills.schemas.js';
import { GROUPS, rateSkill, type Weights } from './skills.model.js';
import { courseDocs, courseUsers, key, loadSkillData, loadSkillInputs, loadWeights, saveWeights, type DocRef, type UserSet } from './skills.queries.js';
import { leadsTeam, notOverseen, overseenUserIds, readsSkills } from './skills.access.js';
import { setSupervisorRatings } from './skills.service.js';

const TAG = ['Skills'];
const LEADS = 'Only Admins and team leads see skills ratings.';
/** A mean to six places. */
const mean = (sum: number, n: number) => Math.round((sum / n) * 1e6) / 1e6;
const avg = (xs: number[]) => (xs.length ? mean(xs.reduce((a, b) => a + b, 0), xs.length) : null);

export async function skillsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, clock } = app;

  async function checkLead(user: AuthUser) {
    forbiddenUnless(await readsSkills(db, user), LEADS);
  }
  async function checkOverseen(user: AuthUser, userids: number[]) {
    const refused = await notOverseen(db, user, userids);
    forbiddenUnless(refused.length === 0, `You may not see or set the skills of user ${refused[0]}: Admins, and team leads for their other members (never their own account).`);
  }
  /** Ratings of users × documents with the current weights. */
  async function ratings(userids: number[], docs: DocRef[]) {
    const [weights, inputs] = await Promise.all([loadWeights(db), loadSkillInputs(db, clock.now(), userids, docs)]);
    return { weights, inputs, rate: (userid: number, d: DocRef) => rateSkill(inputs.get(key(userid, d.doctype, d.docid))!, weights) };
  }
  /** The documents named exist (422 naming each otherwise). */
  async function checkDocs(docs: Array<DocRef & { field: string }>) {
    const guides = docs.filter((d) => d.doctype === 'guide').map((d) => d.docid);
    const wikis = docs.filter((d) => d.doctype === 'wiki').map((d) => d.docid);
    const g = new Set(guides.length ? (await db.selectFrom('guides').select('guideid').where('guideid', 'in', guides).where('deleted', '=', 0).execute()).map((r) => r.guideid) : []);
    const w = new Set(wikis.length ? (await db.selectFrom('wikis').select('wikiid').where('wikiid', 'in', wikis).execute()).map((r) => r.wikiid) : []);
    const errors: FieldError[] = docs.filter((d) => !(d.doctype === 'guide' ? g : w).has(d.docid)).map((d) => ({ field: d.field, code: 'invalid_value', message: `There is no ${d.doctype} ${d.docid}.` }));
    if (errors.length) throw unprocessable(errors);
  }
  async function checkUsers(items: Array<{ userid: number; field: string }>) {
    const ids = [...new Set(items.map((i) => i.userid))];
    const found = new Set((await db.selectFrom('users').select('userid').where('userid', 'in', ids).execute()).map((r) => r.userid));
    const errors = items.filter((i) => !found.has(i.userid)).map((i) => ({ field: i.field, code: 'invalid_value', message: `There is no user ${i.userid}.` }));
    if (errors.length) throw unprocessable(errors);
  }

  app.get('/skills/weights', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Skill rating weights',
      description: 'The weights of the model `rating = Σ_g W_g · Σ_i w_gi · v_i`: `top` (user, management), `user` (training, quiz, practice), `management` (signoff, supervisor). Admins and team leads.',
      response: { 200: SkillWeights, ...errorResponses(401, 403) },
    },
  }, async (request) => {
    await checkLead(requireUser(request));
    return loadWeights(db);
  });

  app.put('/skills/weights', {
    config: { auth: 'admin' },
    schema: {
      tags: TAG,
      summary: 'Change skill rating weights',
      description: 'Body: the groups to change, each whole (`{"user": {"training": 0.6, "quiz": 0.2, "practice": 0.2}}`); each group\'s values must sum to 1 within 0.001 (422 naming the group); omitted groups are unchanged. Admins. Answers every weight.',
      body: WeightsPut,
      response: { 200: SkillWeights, ...errorResponses(401, 403, 422) },
    },
  }, async (request) => {
    const body = request.body as Partial<Weights>;
    const errors: FieldError[] = [];
    for (const group of Object.keys(GROUPS) as Array<keyof typeof GROUPS>) {
      const values = body[group] as Record<string, number> | undefined;
      if (!values) continue;
      const sum = Object.values(values).reduce((a, b) => a + b, 0);
      if (Math.abs(sum - 1) > 0.001) errors.push({ field: group, code: 'invalid_value', message: `The ${group} weights sum to ${Math.round(sum * 1e6) / 1e6}; they must sum to 1.` });
    }
    if (errors.length) throw unprocessable(errors);
    await saveWeights(db, body, requireUser(request), clock.now());
    return loadWeights(db);
  });

  async function supervisorRecords(items: Array<{ userid: number; doctype: string; docid: number }>) {
    const rows = await db.selectFrom('skills_supervisor_ratings').selectAll()
      .where((eb) => eb.or(items.map((i) => eb.and([eb('userid', '=', i.userid), eb('doctype', '=', i.doctype), eb('docid', '=', i.docid)])))).execute();
    return items.map((i) => rows.find((r) => r.userid === i.userid && r.doctype === i.doctype && r.docid === i.docid)!).filter(Boolean)
      .map((r) => ({ userid: r.userid, doctype: r.doctype as 'guide' | 'wiki', docid: r.docid, rating: Number(r.rating), rated_by: r.rated_by, self_override: r.self_override === 1, date: Number(r.date) }));
  }

  app.post('/skills/ratings/supervisor', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Set supervisor ratings',
      description: 'Body `{"ratings": [{"userid", "doctype": "guide" | "wiki", "docid", "rating"}]}` (1 to 200; rating 0 to 1); an existing rating is updated. Users and documents must exist (422 naming them). Admins for anyone; team leads for the members of their teams (403 otherwise). All or none. Answers the ratings.',
      body: SupervisorBody,
      response: { 200: Type.Array(SupervisorRating), ...errorResponses(401, 403, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    await checkLead(user);
    const items = request.body.ratings;
    await checkUsers(items.map((r, i) => ({ userid: r.userid, field: `ratings[${i}].userid` })));
    await checkDocs(items.map((r, i) => ({ doctype: r.doctype, docid: r.docid, field: `ratings[${i}].docid` })));
    await checkOverseen(user, [...new Set(items.map((r) => r.userid))]);
    const unique = [...new Map(items.map((r) => [key(r.userid, r.doctype, r.docid), r])).values()];
    await setSupervisorRatings(db, clock, user, unique);
    return supervisorRecords(unique);
  });

  app.post('/skills/ratings/supervisor/:doctype/:docid/:userid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Set one supervisor rating',
      description: 'Body `{"rating"}` (0 to 1) for the user on the document; an existing rating is updated. Admins, and team leads for their members. Answers the rating.',
      params: RatingParams,
      body: OneSupervisorBody,
      response: { 200: SupervisorRating, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    await checkLead(user);
    const p = request.params;
    const u = await db.selectFrom('users').select('userid').where('userid', '=', p.userid).executeTakeFirst();
    if (!u) throw notFound('User');
    await checkDocs([{ doctype: p.doctype, docid: p.docid, field: 'docid' }]).catch(() => { throw notFound(p.doctype === 'guide' ? 'Guide' : 'Wiki'); });
    await checkOverseen(user, [p.userid]);
    await setSupervisorRatings(db, clock, user, [{ userid: p.userid, doctype: p.doctype, docid: p.docid, rating: request.body.rating }]);
    return (await supervisorRecords([p]))[0];
  });

  app.get('/skills/ratings/:doctype/:docid/:userid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'The breakdown of a user\'s rating on a document',
      description: 'Each group and component: its weight, the weight applied (rescaled over what applies), the assigned value (null: does not apply) and its contribution; and the calculated total. Admins, and team leads for their members.',
      params: RatingParams,
      response: { 200: SkillBreakdown, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    await checkLead(user);
    const p = request.params;
    if (!(await db.selectFrom('users').select('userid').where('userid', '=', p.userid).executeTakeFirst())) throw notFound('User');
    await checkDocs([{ doctype: p.doctype, docid: p.docid, field: 'docid' }]).catch(() => { throw notFound(p.doctype === 'guide' ? 'Guide' : 'Wiki'); });
    await checkOverseen(user, [p.userid]);
    const { rate } = await ratings([p.userid], [p]);
    return { userid: p.userid, doctype: p.doctype, docid: p.docid, ...rate(p.userid, p) };
  });

  app.post('/skills/matrix', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'The skills matrix of users and guides',
      description: 'Body `{"userids": [...], "guideids": [...]}` (1 to 100 each; guides only). Every user\'s rating on every guide, with each user\'s and each guide\'s average. Users and guides must exist (422 naming them); team leads ask about their members only (403). Admins and team leads.',
      body: MatrixBody,
      response: { 200: SkillsMatrix, ...errorResponses(401, 403, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    await checkLead(user);
    const userids = [...new Set(request.body.userids)];
    const guideids = [...new Set(request.body.guideids)];
    await checkUsers(request.body.userids.map((id, i) => ({ userid: id, field: `userids[${i}]` })));
    await checkDocs(request.body.guideids.map((id, i) => ({ doctype: 'guide' as const, docid: id, field: `guideids[${i}]` })));
    await checkOverseen(user, userids);
    const users = await db.selectFrom('users').select(['userid', 'username']).where('userid', 'in', userids).execute();
    const guideRows = await db.selectFrom('guides as g').select(['g.guideid', 'g.langid', 'g.title']).where('g.guideid', 'in', guideids).where('g.deleted', '=', 0)
      .where(guideRowReadable(user, 'g')).execute();
    const names = new Map(users.map((u) => [u.userid, u.username]));
    const titles = new Map<number, string>();
    for (const g of guideRows) if (!titles.has(g.guideid) || g.langid === config.languages[0]) titles.set(g.guideid, g.title);
    const rating = await sparseRatings(userids, guideids.map((id) => ({ doctype: 'guide' as const, docid: id })));
    const cells = userids.flatMap((u) => guideids.map((g) => ({ userid: u, guideid: g, rating: rating(u, { doctype: 'guide', docid: g }) })));
    const userSums = new Map<number, number>();
    const guideSums = new Map<number, number>();
    for (const c of cells) {
      userSums.set(c.userid, (userSums.get(c.userid) ?? 0) + c.rating);
      guideSums.set(c.guideid, (guideSums.get(c.guideid) ?? 0) + c.rating);
    }
    return {
      users: userids.map((id) => ({ userid: id, username: names.get(id) ?? '', average_rating: mean(userSums.get(id) ?? 0, guideids.length) })),
      guides: guideids.map((id) => ({ guideid: id, title: titles.get(id) ?? '', average_rating: mean(guideSums.get(id) ?? 0, userids.length) })),
      ratings: cells,
    };
  });

  /**
   * The rating of a pair of the users × the documents: read for the pairs with anything
   * recorded (loadSkillData), 0 for the others, so that the model runs per recorded pair,
   * not per user and document.
   */
  async function sparseRatings(users: UserSet, docs: DocRef[]) {
    const [weights, data] = await Promise.all([loadWeights(db), loadSkillData(db, clock.now(), users, docs)]);
    const rating = (userid: number, d: DocRef) => (data.recorded(userid, d) ? rateSkill(data.of(userid, d), weights).rating : 0);
    return Object.assign(rating, { usersOn: data.usersOn });
  }

  /**
   * Course ratings (a user's: the average of their ratings on the course's rated stages) of
   * `users` on the courses named: `of` one user's; `averageOver` the average over a number
   * of users among which only those with anything recorded on the course's documents are
   * rated (every other user's course rating is 0).
   */
  async function courseRatings(wikiids: number[], users: UserSet) {
    const stagesOf = new Map<number, DocRef[]>();
    for (const s of await courseDocs(db, wikiids)) {
      const doc = { doctype: s.doctype as DocRef['doctype'], docid: s.docid };
      const list = stagesOf.get(s.wikiid);
      if (list) list.push(doc);
      else stagesOf.set(s.wikiid, [doc]);
    }
    const docs = [...new Map([...stagesOf.values()].flat().map((d) => [`${d.doctype}:${d.docid}`, d])).values()];
    const rating = await sparseRatings(users, docs);
    const of = (wikiid: number, userid: number) => avg((stagesOf.get(wikiid) ?? []).map((d) => rating(userid, d)));
    return {
      stagesOf: (wikiid: number) => stagesOf.get(wikiid)?.length ?? 0,
      of,
      averageOver(wikiid: number, count: number): number | null {
        const stages = stagesOf.get(wikiid) ?? [];
        if (!stages.length || !count) return null;
        let sum = 0;
        for (const userid of new Set(stages.flatMap((d) => rating.usersOn(d)))) sum += of(wikiid, userid) ?? 0;
        return mean(sum, count);
      },
    };
  }

  app.get('/skills/teams/:teamid/courses', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'A team\'s courses with its average skill rating',
      description: 'The courses assigned directly to the team (active assignments), each with its rated stages (guides and wikis), the team\'s members and their average course rating. Admins and the team\'s leads.',
      params: Type.Object({ teamid: Id() }),
      response: { 200: Type.Array(TeamCourse), ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const teamid = request.params.teamid;
    if (!(await db.selectFrom('teams').select('teamid').where('teamid', '=', teamid).executeTakeFirst())) throw notFound('Team');
    forbiddenUnless(await leadsTeam(db, user, teamid), 'Only Admins and the team\'s leads see its skills.');
    const courses = await db.selectFrom('course_assignments as ca').innerJoin('courses as c', 'c.wikiid', 'ca.wikiid')
      .select(['c.wikiid', 'c.title']).distinct().where('ca.assignee_teamid', '=', teamid).where('ca.cancelled', '=', 0).where('c.deleted', '=', 0)
      .orderBy('c.wikiid').limit(200).execute();
    // The members as a subquery: a team of thousands is read as the pairs with anything
    // recorded, never as a list of its members.
    const members = db.selectFrom('team_members').select('userid').where('teamid', '=', teamid);
    const [count, cr] = await Promise.all([
      db.selectFrom('team_members').select((eb) => eb.fn.countAll<number>().as('n')).where('teamid', '=', teamid).executeTakeFirstOrThrow(),
      courseRatings(courses.map((c) => c.wikiid), members),
    ]);
    const membersCount = Number(count.n);
    return courses.map((c) => ({
      wikiid: c.wikiid, title: c.title, stages_count: cr.stagesOf(c.wikiid), members_count: membersCount, average_rating: cr.averageOver(c.wikiid, membersCount),
    }));
  });

  app.get('/skills/courses/:wikiid/assignees', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'A course\'s assignees with their skill ratings',
      description: 'The users assigned the course directly, each with their course rating (the average of their ratings on its guide and wiki stages), and the teams assigned, each with its members\' average; and the average over every user reached. Admins see all; team leads the members of their teams and the teams they lead. At most 500 users.',
      params: Type.Object({ wikiid: Id() }),
      response: { 200: CourseAssigneesRatings, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    await checkLead(user);
    const wikiid = request.params.wikiid;
    if (!(await db.selectFrom('courses').select('wikiid').where('wikiid', '=', wikiid).where('deleted', '=', 0).executeTakeFirst())) throw notFound('Course');
    const admin = user.privileges.includes('Admin');
    const led = admin ? null : new Set((await overseenUserIds(db, user).execute()).map((r) => r.userid));
    const reached = (await courseUsers(db, [wikiid]).limit(500).execute()).map((r) => Number(r.userid)).filter((id) => !led || led.has(id));
    const direct = await db.selectFrom('course_assignments as ca').innerJoin('users as u', 'u.userid', 'ca.assignee_userid')
      .select(['u.userid', 'u.username']).distinct().where('ca.wikiid', '=', wikiid).where('ca.cancelled', '=', 0).orderBy('u.userid').execute();
    const teams = await db.selectFrom('course_assignments as ca').innerJoin('teams as t', 't.teamid', 'ca.assignee_teamid')
      .select(['t.teamid', 't.name']).distinct().where('ca.wikiid', '=', wikiid).where('ca.cancelled', '=', 0).orderBy('t.teamid').execute();
    const members = teams.length ? await db.selectFrom('team_members').select(['teamid', 'userid']).where('teamid', 'in', teams.map((t) => t.teamid)).execute() : [];
    const visibleTeams = [];
    for (const t of teams) if (admin || (await leadsTeam(db, user, t.teamid))) visibleTeams.push(t);
    const all = [...new Set([...reached, ...direct.map((d) => d.userid).filter((id) => !led || led.has(id))])];
    const cr = await courseRatings([wikiid], all);
    return {
      wikiid,
      users: direct.filter((d) => !led || led.has(d.userid)).map((d) => ({ userid: d.userid, username: d.username, rating: cr.of(wikiid, d.userid) })),
      teams: visibleTeams.map((t) => {
        const ids = members.filter((m) => m.teamid === t.teamid).map((m) => m.userid);
        return { teamid: t.teamid, name: t.name, members_count: ids.length, average_rating: avg(ids.map((id) => cr.of(wikiid, id)).filter((x): x is number => x !== null)) };
      }),
      average_rating: avg(all.map((id) => cr.of(wikiid, id)).filter((x): x is number => x !== null)),
    };
  });

  app.get('/skills/guides/:guideid/assignees', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'A guide\'s assignees with their skill ratings',
      description: 'The users an active course assignment with a stage on the guide reaches (directly or through a team), a page by userid (`offset`, `limit`), each with their rating and its components, and the page\'s averages. Admins see all; team leads their members.',
      params: Type.Object({ guideid: Id() }),
      querystring: PageQuery,
      response: { 200: GuideAssigneesRatings, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    await checkLead(user);
    const guideid = request.params.guideid;
    if (!(await db.selectFrom('guides').select('guideid').where('guideid', '=', guideid).where('deleted', '=', 0).executeTakeFirst())) throw notFound('Guide');
    const wikiids = (await db.selectFrom('course_stages as s').innerJoin('courses as c', 'c.wikiid', 's.wikiid').select('s.wikiid').distinct()
      .where('s.doctype', '=', 'guide').where('s.docid', '=', guideid).where('s.active', '=', 1).where('c.deleted', '=', 0).execute()).map((r) => r.wikiid);
    if (!wikiids.length) return { guideid, total: 0, assignees: [], averages: { rating: null, training: null, quiz: null, practice: null, signoff: null, supervisor: null } };
    const admin = user.privileges.includes('Admin');
    let reached = db.selectFrom(courseUsers(db, wikiids).as('r')).select('r.userid').distinct();
    if (!admin) reached = reached.where('r.userid', 'in', overseenUserIds(db, user));
    const total = Number((await db.selectFrom(reached.as('x')).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
    const page = (await reached.orderBy('r.userid').limit(request.query.limit).offset(request.query.offset).execute()).map((r) => Number(r.userid));
    const names = page.length ? await db.selectFrom('users').select(['userid', 'username']).where('userid', 'in', page).execute() : [];
    const doc = { doctype: 'guide' as const, docid: guideid };
    const { rate, inputs } = await ratings(page, [doc]);
    const assignees = page.map((id) => ({ userid: id, username: names.find((n) => n.userid === id)?.username ?? '', rating: rate(id, doc).rating, ...inputs.get(key(id, 'guide', guideid))!, training: inputs.get(key(id, 'guide', guideid))!.training ?? 0 }));
    const mean = (f: (a: (typeof assignees)[number]) => number | null) => avg(assignees.map(f).filter((x): x is number => x !== null));
    return {
      guideid, total, assignees,
      averages: { rating: mean((a) => a.rating), training: mean((a) => a.training), quiz: mean((a) => a.quiz), practice: mean((a) => a.practice), signoff: mean((a) => a.signoff), supervisor: mean((a) => a.supervisor) },
    };
  });
}
