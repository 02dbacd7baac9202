// The reads a plant of thousands makes of its workforce every day cost a fixed number of
// queries, whatever the number of people: a lead's skills matrix of their team, the team's
// course averages, the completion summaries of users and of teams, and a user's
// assignments, at N and at 10 × N members. The team's members are never sent to the
// database as a list (the statements' parameters are the same at both sizes), and on
// SQLite (whose plans do not depend on statistics) no read walks a whole table of progress.
import { CompiledQuery, type Kysely } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeTeam, makeUser, type TestUser } from '../../helpers/factories.js';
import { makePublishedGuide } from '../../helpers/factories/guides.js';
import { makeCourse } from '../../helpers/factories/assessments.js';

const N = 6;

let admin: TestUser;
let guideids: number[];
const t = appForFile({}, async () => {
  admin = await makeAdmin(t);
  const author = await makeAuthor(t);
  guideids = [];
  for (let i = 0; i < 3; i++) guideids.push((await makePublishedGuide(t, author)).guideid);
});

interface Workforce { lead: TestUser; teamid: number; wikiid: number; members: number[] }

/**
 * A team of `n` members and its lead, assigned a course of three guide stages; the members
 * of even position have completed the first stage (a manager's completion), those of
 * position divisible by three have a supervisor rating of 1 on the second guide.
 */
async function workforce(n: number): Promise<Workforce> {
  const lead = await makeUser(t);
  const team = await makeTeam(t, lead);
  const now = t.clock.now();
  const tag = `${n}-${Math.random().toString(36).slice(2)}`;
  const users = await t.db.insertInto('users')
    .values(Array.from({ length: n }, (_, i) => ({ email: `wf${tag}-${i}@example.com`, username: `Worker ${tag} ${i}`, username_lower: `worker ${tag} ${i}`, password_hash: 'x', privileges: 'User', join_date: now }) as any))
    .returning('userid').execute();
  const members = users.map((u) => u.userid).sort((a, b) => a - b);
  await t.db.insertInto('team_members').values(members.map((userid) => ({ teamid: team.teamid, userid, is_lead: 0, join_date: now }))).execute();
  const { wikiid, stageids } = await makeCourse(t, guideids.map((docid) => ({ doctype: 'guide' as const, docid })), [], [team.teamid]);
  // The stored assignee rows, as the first read of the course makes them.
  expect((await t.get(`/course_assignees/course/${wikiid}/users`, { token: admin.token })).json().totalAssignees).toBe(n + 1);
  const completions = members.filter((_, i) => i % 2 === 0).map((userid) => ({ userid, course_stageid: stageids[0] }));
  expect((await t.post('/course_assignments/stage_completions', { token: admin.token, body: { completions } })).statusCode).toBe(200);
  const ratings = members.filter((_, i) => i % 3 === 0).map((userid) => ({ userid, doctype: 'guide', docid: guideids[1], rating: 1 }));
  expect((await t.post('/skills/ratings/supervisor', { token: admin.token, body: { ratings } })).statusCode).toBe(200);
  return { lead, teamid: team.teamid, wikiid, members };
}

/** Every query `run` sends, with its parameters. */
async function captured(run: () => Promise<unknown>): Promise<CompiledQuery[]> {
  const out: CompiledQuery[] = [];
  t.app.dbHandle.setQueryListener!((e) => { if (e.level === 'query') out.push(e.query); });
  try {
    await run();
  } finally {
    t.app.dbHandle.setQueryListener!(null);
  }
  return out;
}

/** SQLite's plan of a query, its steps' details one per line. */
async function sqlitePlan(db: Kysely<any>, q: CompiledQuery): Promise<string> {
  const r = await db.executeQuery<{ detail: string }>(CompiledQuery.raw(`explain query plan ${q.sql}`, [...q.parameters]));
  return r.rows.map((x) => x.detail).join('\n');
}

// A rating of 1 on a guide where only training applies (0.5 training, 0.2 practice: 0.5 / 0.7).
const TRAINED = 0.714286;
// A supervisor's rating of 1 on an untrained guide: user group 0, management 1, half each.
const RATED = 0.5;

/** The team's average of its members' course ratings, as the model gives it for `workforce`'s data. */
function expectedAverage(w: Workforce): number {
  const sum = w.members.reduce((s, _, i) => s + Math.round((((i % 2 === 0 ? TRAINED : 0) + (i % 3 === 0 ? RATED : 0)) / 3) * 1e6) / 1e6, 0);
  return Math.round((sum / (w.members.length + 1)) * 1e6) / 1e6;
}

describe('the workforce reads at N and at 10 × N members', () => {
  let small: Workforce;
  let big: Workforce;
  beforeAll(async () => {
    small = await workforce(N);
    big = await workforce(10 * N);
  }, 120_000);

  const reads = {
    'POST /skills/matrix': (w: Workforce) => t.post('/skills/matrix', { token: w.lead.token, body: { userids: w.members, guideids } }),
    'GET /skills/teams/{teamid}/courses': (w: Workforce) => t.get(`/skills/teams/${w.teamid}/courses`, { token: w.lead.token }),
    'GET /course_assignments/individualSummaries': (w: Workforce) => t.get('/course_assignments/individualSummaries?limit=5&page=1', { token: w.lead.token }),
    'GET /course_assignments/teamSummaries': (w: Workforce) => t.get('/course_assignments/teamSummaries', { token: w.lead.token }),
    'GET /course_assignments/completion/user/{userid}': (w: Workforce) => t.get(`/course_assignments/completion/user/${w.members[0]}`, { token: w.lead.token }),
  };

  it('answer what the lead sees', async () => {
    for (const w of [small, big]) {
      const matrix = (await reads['POST /skills/matrix'](w)).json();
      expect(matrix.ratings).toHaveLength(w.members.length * 3);
      expect(matrix.ratings.slice(0, 3)).toEqual([
        { userid: w.members[0], guideid: guideids[0], rating: TRAINED },
        { userid: w.members[0], guideid: guideids[1], rating: RATED },
        { userid: w.members[0], guideid: guideids[2], rating: 0 },
      ]);
      expect(matrix.ratings.find((r: { userid: number; guideid: number }) => r.userid === w.members[1] && r.guideid === guideids[0]).rating).toBe(0);
      const courses = (await reads['GET /skills/teams/{teamid}/courses'](w)).json();
      expect(courses).toEqual([expect.objectContaining({ wikiid: w.wikiid, stages_count: 3, members_count: w.members.length + 1 })]);
      expect(courses[0].average_rating).toBeCloseTo(expectedAverage(w), 5);
      const summaries = (await reads['GET /course_assignments/individualSummaries'](w)).json();
      expect(summaries).toHaveLength(5);
      expect(summaries.every((s: { courses_assigned: number }) => s.courses_assigned === 1)).toBe(true);
      const team = (await reads['GET /course_assignments/teamSummaries'](w)).json();
      expect(team).toEqual([expect.objectContaining({ teamid: w.teamid, members_count: w.members.length + 1, assignees: w.members.length + 1, in_progress: Math.ceil(w.members.length / 2) })]);
      const mine = (await reads['GET /course_assignments/completion/user/{userid}'](w)).json();
      expect(mine).toEqual([expect.objectContaining({ wikiid: w.wikiid, userid: w.members[0], completed_stages: 1, total_stages: 3, status: 'In Progress' })]);
    }
  });

  it('cost the same queries, with the same parameters but for the matrix\'s own lists', async () => {
    for (const [name, read] of Object.entries(reads)) {
      // Each read once before it is counted: the membership comparison before a read is kept while nothing changes.
      await read(small);
      await read(big);
      const a = await captured(() => read(small));
      const b = await captured(() => read(big));
      expect(b.length, name).toBe(a.length);
      expect(a.length, name).toBeLessThanOrEqual(20);
      // A member list sent as parameters would grow tenfold; only the matrix's body (the users asked about) may.
      // (Sorted: reads sent together arrive in any order on PostgreSQL.)
      const parameters = (qs: CompiledQuery[]) => qs.map((q) => q.parameters.length).sort((x, y) => x - y);
      if (name !== 'POST /skills/matrix') expect(parameters(b), name).toEqual(parameters(a));
    }
  });

  it.skipIf(!!process.env.TEST_DATABASE_URL)('read no whole table of progress, memberships or teams (SQLite plans)', async () => {
    const tables = ['course_assignees', 'course_stage_statuses', 'course_stage_completions', 'team_members', 'teams', 'skills_supervisor_ratings', 'work_log', 'users'];
    for (const [name, read] of Object.entries(reads)) {
      for (const q of await captured(() => read(big))) {
        if (!/^\s*select/i.test(q.sql)) continue;
        const plan = await sqlitePlan(t.db, q);
        // The summary walks users in id order up to its page (a scan with a limit); nothing else scans.
        const allowed = name === 'GET /course_assignments/individualSummaries' && /order by "users"."userid" limit/.test(q.sql) ? ['users'] : [];
        for (const table of tables.filter((x) => !allowed.includes(x))) expect(plan, `${name}: ${q.sql}`).not.toMatch(new RegExp(`^SCAN ${table}\\b`, 'm'));
      }
    }
  });
});
