// Course assignees (the specification's /course_assignees/...): the users and teams a
// course is assigned to, from the stored assignee rows (status, progress and dates kept
// current by every write and by the expiry job, and brought up to now before each read),
// each `orderby` served by an index; and one assignee's detailed view with its stages.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import { errorResponses, Id, IdParam } from '../../http/schemas.js';
import { notFound } from '../../http/errors.js';
import { requireUser, type AuthUser } from '../../http/auth.js';
import { forbiddenUnless } from '../../http/policy.js';
import { likeEscape } from '../../db/helpers.js';
import { STATUS_KEYS, STATUS_TEXT, assigneeStatus } from '../shared/course-status.js';
import { bringUpToDate } from '../shared/course-progress.js';
import { AssigneeDetail, AssigneeQuery, AssigneeTeam, AssigneeUser, PageQuery } from './courses.schemas.js';
import { findCourse, stagesOf, docInfo, docKey } from './courses.queries.js';
import { avatars, stageStates, type AssigneeRow } from './courses.records.js';
import { managesCourses, managesTeam, readsUser, visibleTeam, visibleUser } from './courses.access.js';
import { loadImageObjects } from '../media/image-object.js';

const TAG = ['Course assignees'];
const ORDER = { username: 'username', status: 'status', stage_progress: 'stage_progress', assignment_date: 'assignment_date', due_date: 'due_date', course_completion_date: 'course_completion_date', recurrence_date: 'recurrence_date' } as const;
const WHO = 'Admins and Authors see every assignee; team leads the members of their teams; a user themself.';

export async function assigneesRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, clock } = app;

  async function currentCourse(wikiid: number) {
    if (!(await findCourse(db, wikiid))) throw notFound('Course');
    await bringUpToDate(db, clock.now(), { wikiid });
  }
  const visible = (user: AuthUser) => (managesCourses(user) ? sql<boolean>`1 = 1` : visibleUser(db, user, 'ca.userid'));

  async function entries(rows: AssigneeRow[]) {
    const people = await avatars(db, config, rows.map((r) => r.userid));
    return rows.map((r) => ({
      userid: r.userid,
      total_stages: r.total_stages,
      username: people.get(r.userid)?.name ?? r.username,
      user_avatar: people.get(r.userid)?.avatar ?? null,
      completed_stages: r.completed_stages,
      status: STATUS_TEXT[r.status] ?? 'Not Started',
      course_completion_date: r.course_completion_date == null ? null : Number(r.course_completion_date),
      assignment_date: Number(r.assignment_date),
      recurrent_date: r.recurrence_date == null ? null : Number(r.recurrence_date),
      due_date: r.due_date == null ? null : Number(r.due_date),
    }));
  }

  app.get('/course_assignees/course/:wikiid/users', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Active user assignments of a course',
      description: `Everyone an active assignment reaches (directly or through a team). \`page\`, \`limit\` (default 10), \`direction\`, \`orderby\` (default username), \`status\` (one or a comma list), \`search\` (in the username). ${WHO}`,
      params: IdParam('wikiid'),
      querystring: AssigneeQuery,
      response: { 200: Type.Object({ response: Type.Array(AssigneeUser), hasMore: Type.Boolean(), totalAssignees: Type.Integer() }), ...errorResponses(401, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const { wikiid } = request.params;
    const q = request.query;
    await currentCourse(wikiid);
    const statuses = q.status ? [...new Set(q.status.split(','))].map((s) => STATUS_KEYS.indexOf(s as (typeof STATUS_KEYS)[number])) : null;
    const search = q.search?.trim().toLowerCase();
    const base = db.selectFrom('course_assignees as ca').where('ca.wikiid', '=', wikiid).where('ca.active', '=', 1).where(visible(user))
      .$if(statuses !== null, (s) => s.where('ca.status', 'in', statuses!))
      .$if(!!search, (s) => s.where('ca.username', 'like', `%${likeEscape(search!)}%`));
    const dir = q.direction === 'DESC' ? 'desc' : 'asc';
    const [rows, total] = await Promise.all([
      base.selectAll('ca').orderBy(sql.ref(`ca.${ORDER[q.orderby]}`), (ob) => (dir === 'desc' ? ob.desc().nullsLast() : ob.asc().nullsLast())).orderBy('ca.userid', dir)
        .limit(q.limit + 1).offset((q.page - 1) * q.limit).execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ]);
    return { response: await entries(rows.slice(0, q.limit)), hasMore: rows.length > q.limit, totalAssignees: Number(total.n) };
  });

  app.get('/course_assignees/course/:wikiid/teams', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Team assignments of a course',
      description: '`page`, `limit`, `direction`, `orderby` (username orders by team name; status, stage_progress by progress; assignment_date, due_date by the assignment), `search` (in the team name). Admins and Authors see every team; team leads their teams.',
      params: IdParam('wikiid'),
      querystring: AssigneeQuery,
      response: { 200: Type.Object({ response: Type.Array(AssigneeTeam), hasMore: Type.Boolean(), totalAssignees: Type.Integer() }), ...errorResponses(401, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const { wikiid } = request.params;
    const q = request.query;
    await currentCourse(wikiid);
    const search = q.search?.trim().toLowerCase();
    const teams = await db.selectFrom('course_assignments as a').innerJoin('teams as t', 't.teamid', 'a.assignee_teamid')
      .select(['t.teamid', 't.name', 't.imageid', 'a.created_date', 'a.due_within'])
      .where('a.wikiid', '=', wikiid).where('a.cancelled', '=', 0)
      .$if(!managesCourses(user), (s) => s.where(visibleTeam(db, user, 't.teamid')))
      .$if(!!search, (s) => s.where('t.name_lower', 'like', `%${likeEscape(search!)}%`))
      .orderBy('a.course_assignmentid').limit(1000).execute();
    const ids = teams.map((t) => t.teamid);
    const stats = ids.length ? await db.selectFrom('team_members as tm').innerJoin('course_assignees as ca', (j) => j.onRef('ca.userid', '=', 'tm.userid').on('ca.wikiid', '=', wikiid).on('ca.active', '=', 1))
      .select((eb) => ['tm.teamid', eb.fn.countAll<number>().as('members'), eb.fn.sum<number>(eb.case().when('ca.status', '=', 2).then(1).else(0).end()).as('done'),
        eb.fn.sum<number>(eb.case().when('ca.status', '>', 0).then(1).else(0).end()).as('touched'), eb.fn.sum<number>('ca.completed_stages').as('stages_done'), eb.fn.max('ca.total_stages').as('total')])
      .where('tm.teamid', 'in', ids).groupBy('tm.teamid').execute() : [];
    const images = await loadImageObjects(db, config, teams.map((t) => t.imageid));
    const out = teams.map((t) => {
      const s = stats.find((x) => x.teamid === t.teamid);
      const members = Number(s?.members ?? 0);
      const done = Number(s?.done ?? 0);
      const total = Number(s?.total ?? 0);
      return {
        teamid: t.teamid, team_name: t.name, time_allotted: t.due_within == null ? null : Number(t.due_within), team_assignment_date: Number(t.created_date),
        members_count: members, members_completed: done, avatar: t.imageid ? images.get(t.imageid)?.thumbnail ?? null : null,
        completion_percentage: members ? Math.floor((done * 100) / members) : 0, total_stages: total * members, completed_stages: Number(s?.stages_done ?? 0),
        status: STATUS_TEXT[assigneeStatus(members, done, Number(s?.touched ?? 0))],
      };
    });
    const key = (r: (typeof out)[number]): string | number => {
      switch (q.orderby) {
        case 'username': return r.team_name.toLowerCase();
        case 'status': case 'stage_progress': case 'course_completion_date': return r.completion_percentage;
        case 'due_date': return r.time_allotted == null ? Number.MAX_SAFE_INTEGER : r.team_assignment_date + r.time_allotted;
        default: return r.team_assignment_date;
      }
    };
    out.sort((a, b) => {
      const ka = key(a);
      const kb = key(b);
      const c = ka < kb ? -1 : ka > kb ? 1 : a.teamid - b.teamid;
      return q.direction === 'DESC' ? -c : c;
    });
    const start = (q.page - 1) * q.limit;
    return { response: out.slice(start, start + q.limit), hasMore: out.length > start + q.limit, totalAssignees: out.length };
  });

  app.get('/course_assignees/course/:wikiid/teams/:teamid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'The members of a team assigned a course',
      description: 'The team\'s members the course reaches, by username, paged (`page`, `limit`). Admins, Authors and the team\'s leads.',
      params: Type.Object({ wikiid: Id(), teamid: Id() }),
      querystring: PageQuery,
      response: { 200: Type.Object({ response: Type.Array(AssigneeUser), hasMore: Type.Boolean() }), ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const { wikiid, teamid } = request.params;
    if (!(await db.selectFrom('teams').select('teamid').where('teamid', '=', teamid).executeTakeFirst())) throw notFound('Team');
    forbiddenUnless(managesCourses(user) || await managesTeam(db, user, teamid), 'Only Admins, Authors and the team\'s leads see this.');
    await currentCourse(wikiid);
    const q = request.query;
    const rows = await db.selectFrom('course_assignees as ca').selectAll('ca').where('ca.wikiid', '=', wikiid).where('ca.active', '=', 1)
      .where('ca.userid', 'in', db.selectFrom('team_members').select('userid').where('teamid', '=', teamid))
      .orderBy('ca.username').orderBy('ca.userid').limit(q.limit + 1).offset((q.page - 1) * q.limit).execute();
    return { response: await entries(rows.slice(0, q.limit)), hasMore: rows.length > q.limit };
  });

  app.get('/course_assignees/course/:wikiid/user/:userid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'One assignee of a course, with its stages',
      description: `The assignment, the assigner, dates and each stage's status, completion, work log PDF and (filled by assessments) quiz and sign-off. 404 when the course does not reach the user. ${WHO}`,
      params: Type.Object({ wikiid: Id(), userid: Id() }),
      response: { 200: AssigneeDetail, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const { wikiid, userid } = request.params;
    forbiddenUnless(managesCourses(user) || await readsUser(db, user, userid), 'Only the user, their team leads, Authors and Admins see this.');
    await currentCourse(wikiid);
    const row = await db.selectFrom('course_assignees').selectAll().where('wikiid', '=', wikiid).where('userid', '=', userid).where('active', '=', 1).executeTakeFirst();
    if (!row) throw notFound('Course assignee');
    const a = await db.selectFrom('course_assignments').select(['userid_assigner', 'created_date']).where('course_assignmentid', '=', row.course_assignmentid!).executeTakeFirstOrThrow();
    const stages = await stagesOf(db, [wikiid]);
    const [info, states, people, assessments] = await Promise.all([
      docInfo(db, config, stages),
      stageStates(db, [wikiid], [userid]),
      avatars(db, config, [userid, a.userid_assigner].filter((x): x is number => x != null)),
      app.stageAssessmentFields(db, config, stages.map((s) => ({
        userid, course_stageid: s.course_stageid, doctype: s.doctype, docid: s.docid, stage_assessmentid: s.stage_assessmentid, assessmenttype: s.assessmenttype,
        teamid_signer: s.teamid_signer, quiz_passing_score: s.quiz_passing_score, attempts_limit: s.attempts_limit, skills_points_possible: s.skills_points_possible,
      }))),
    ]);
    const entryids = [...states.values()].map((s) => s.completion.work_log_entryid).filter((x): x is number => x != null);
    const entries = entryids.length ? await db.selectFrom('work_log').select(['entryid', 'end_date']).where('entryid', 'in', entryids).execute() : [];
    const ends = new Map(entries.map((e) => [e.entryid, e.end_date]));
    const person = (id: number | null) => ({ userid: id, name: id != null ? people.get(id)?.name ?? '' : '', avatar: id != null ? people.get(id)?.avatar ?? null : null });
    return {
      assigner: person(a.userid_assigner),
      assignee: person(userid),
      created_date: Number(row.assignment_date),
      due_date: row.due_date == null ? null : Number(row.due_date),
      course_assignmentid: row.course_assignmentid!,
      completion_date: row.course_completion_date == null ? null : Number(row.course_completion_date),
      completion_status: STATUS_TEXT[row.status] ?? 'Not Started',
      total_stages_complete: row.completed_stages,
      stages: stages.map((s) => {
        const st = states.get(`${s.course_stageid}:${userid}`);
        const c = st?.completion;
        const entryid = c?.work_log_entryid ?? null;
        const i = info.get(docKey(s));
        const f = assessments.get(s.course_stageid);
        return {
          course_stageid: s.course_stageid,
          doc_title: i?.title ?? '',
          doc_url: i?.url ?? '',
          docid: s.docid,
          doctype: s.doctype,
          completion_status: (st?.status ?? null) as 'completed' | null,
          completion_date: c?.end_date == null ? null : Number(c.end_date),
          due_date: st?.status === 'completed' ? st.expires_date : row.due_date == null ? null : Number(row.due_date),
          work_log_entry_pdf_url: entryid != null ? `${config.publicUrl}/api/2.0/courses/work_log/${entryid}/pdf` : null,
          work_log_completion_date: entryid != null && ends.get(entryid) != null ? Number(ends.get(entryid)) : null,
          attached_quiz: f?.attached_quiz ?? null,
          quiz_session: f?.quiz_session ?? null,
          quiz_attempts_remaining: f?.quiz_attempts_remaining ?? null,
          signoff: f?.signoff ?? null,
        };
      }),
    };
  });
}
