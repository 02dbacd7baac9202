// Courses and wikis share one id space (issue 62 item 3): a new course's id is taken from
// the wikis' allocation (whatever inserts the row), and migration 2026_12_04_1600_course_ids renumbers each course
// whose id was a wiki page's, rewrites every table that names it (COURSE_ID_COLUMNS) and
// keeps the old id working on the course routes with a Deprecation header.
import { Migrator, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAdmin, makeAuthor, makeUser, type TestUser } from '../../helpers/factories.js';
import { migrations } from '../../../src/db/migrations/index.js';
import { migrateToLatest } from '../../../src/db/migrate.js';
import { COURSE_ID_COLUMNS } from '../../../src/db/migrations/2026_12_04_1600_course_ids.js';

let admin: TestUser;
let author: TestUser;
let trainee: TestUser;
const t = appForFile({}, async () => {
  [admin, author, trainee] = await Promise.all([makeAdmin(t), makeAuthor(t), makeUser(t)]);
});

const wikiIds = async () => new Set((await t.db.selectFrom('wikis').select('wikiid').execute()).map((r) => r.wikiid));
const newWiki = async (title: string) =>
  (await t.db.insertInto('wikis').values({ namespace: 'CATEGORY', title } as never).returning('wikiid').executeTakeFirstOrThrow()).wikiid;

describe('course ids', () => {
  it('a new course takes an id no wiki page has, and no later wiki takes it', async () => {
    await newWiki('Courseids category one');
    const created = await t.post('/courses', { token: author.token, body: { title: 'Courseids new course', contents: '' } });
    expect(created.statusCode).toBe(201);
    const { wikiid } = created.json();
    expect(await wikiIds()).not.toContain(wikiid);
    const later = await newWiki('Courseids category two');
    expect(later).not.toBe(wikiid);
    expect((await t.get(`/courses/${wikiid}`, { token: author.token })).headers.deprecation).toBeUndefined();
    // Any course row, however inserted (seeds, fixtures), takes its id from the same allocation.
    const now = t.clock.now();
    const direct = (await t.db.insertInto('courses').values({ langid: 'en', title: 'Direct', title_lower: 'direct', publish_date: null, userid: null, created_date: now, modified_date: now })
      .returning('wikiid').executeTakeFirstOrThrow()).wikiid;
    expect(await wikiIds()).not.toContain(direct);
    expect([wikiid, direct]).not.toContain(await newWiki('Courseids category three'));
  });

  it('the migration renumbers colliding courses, leaves no dangling reference, and old ids still work', async () => {
    const migrator = new Migrator({ db: t.db, provider: { getMigrations: async () => migrations } });
    const down = await migrator.migrateTo('2026_12_04_1400_token_sessions');
    expect(down.error).toBeUndefined();

    // The state before: a course with the id of a category (as "Line maintenance basics"
    // and "Plant Safety"), with a row in every table that names a course.
    const now = t.clock.now();
    const wikiid = await newWiki('Courseids plant safety');
    const course = { langid: 'en', title: 'Line maintenance basics', title_lower: 'line maintenance basics', publish_date: now, userid: author.userid, created_date: now, modified_date: now };
    await t.db.insertInto('courses').values({ ...course, wikiid } as never).execute();
    // A course above every wiki id: no future wiki may take it.
    const ahead = Math.max(...(await wikiIds())) + 50;
    await t.db.insertInto('courses').values({ ...course, title: 'Ahead', title_lower: 'ahead', wikiid: ahead } as never).execute();
    await t.db.insertInto('course_wiki_revisions').values({ wikiid, userid: null, date: now, snapshot: '{}' }).execute();
    const { course_stageid } = await t.db.insertInto('course_stages').values({ wikiid, position: 0, doctype: 'guide', docid: 1, strictness: null, frequency_quantity: null, frequency_unit: null, stage_assessmentid: null, assessmenttype: null, teamid_signer: null, quiz_passing_score: null, attempts_limit: null, skills_points_possible: null }).returning('course_stageid').executeTakeFirstOrThrow();
    const { course_assignmentid } = await t.db.insertInto('course_assignments').values({ wikiid, assignee_userid: trainee.userid, assignee_teamid: null, userid_assigner: admin.userid, due_within: null, created_date: now }).returning('course_assignmentid').executeTakeFirstOrThrow();
    await t.db.insertInto('course_assignees').values({ wikiid, userid: trainee.userid, course_assignmentid, username: trainee.username.toLowerCase(), assignment_date: now, due_date: null, course_completion_date: null, recurrence_date: null, next_check_date: null }).execute();
    const { course_assignment_stage_completionid } = await t.db.insertInto('course_stage_completions').values({ course_stageid, wikiid, userid: trainee.userid, doctype: 'guide', docid: 1, doc_revisionid: null, via: 'explicit', init_date: now, end_date: now, work_log_entryid: null, quiz_sessionid: null, signoff_requestid: null, module_attemptid: null, manager_override_userid: null, invalidated_date: null, expired_date: null }).returning('course_assignment_stage_completionid').executeTakeFirstOrThrow();
    await t.db.insertInto('course_stage_statuses').values({ course_stageid, userid: trainee.userid, wikiid, status: 'completed', completionid: course_assignment_stage_completionid, expires_date: null, modified_date: now }).execute();
    await t.db.insertInto('signoff_requests').values({ stage_assessmentid: 1, course_stageid, wikiid, doctype: 'guide', docid: 1, userid_requestor: trainee.userid, created_at: now }).execute();

    await migrateToLatest(t.db);

    const alias = await t.db.selectFrom('course_id_aliases').selectAll().where('old_wikiid', '=', wikiid).executeTakeFirstOrThrow();
    const newId = alias.new_wikiid;
    const wikis = await wikiIds();
    expect(wikis).not.toContain(newId);
    const courseIds = (await t.db.selectFrom('courses').select('wikiid').execute()).map((r) => r.wikiid);
    expect(courseIds.filter((id) => wikis.has(id))).toEqual([]);
    expect(courseIds).toContain(ahead);
    for (const { table, column } of COURSE_ID_COLUMNS) {
      const dangling = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)} where ${sql.ref(column)} not in (select wikiid from courses)`.execute(t.db);
      expect(Number(dangling.rows[0].n), table).toBe(0);
      const moved = await sql<{ n: number | string }>`select count(*) as n from ${sql.table(table)} where ${sql.ref(column)} = ${newId}`.execute(t.db);
      expect(Number(moved.rows[0].n), table).toBeGreaterThan(0);
    }
    // The wikis' counter passed the course that was ahead.
    expect(await newWiki('Courseids after the migration')).toBeGreaterThan(ahead);

    // The old id on course routes: read as the new one, with Deprecation and a Link.
    const old = await t.get(`/courses/${wikiid}`, { token: admin.token });
    expect(old.statusCode).toBe(200);
    expect(old.json().wikiid).toBe(newId);
    expect(old.headers.deprecation).toBe('true');
    expect(String(old.headers.link)).toContain(`/courses/${newId}>`);
    const users = await t.get(`/course_assignees/course/${wikiid}/users`, { token: admin.token });
    expect(users.statusCode).toBe(200);
    expect(users.headers.deprecation).toBe('true');
    // An old id in a body (an assignment) is read as the new one too.
    const assigned = await t.post('/course_assignments', { token: admin.token, body: { wikiid, assignee_userid: author.userid } });
    expect(assigned.statusCode).toBe(201);
    expect(assigned.headers.deprecation).toBe('true');
    expect(assigned.json().wikiid).toBe(newId);
    const current = await t.get(`/courses/${newId}`, { token: admin.token });
    expect(current.statusCode).toBe(200);
    expect(current.headers.deprecation).toBeUndefined();
  });
});
