// Courses (extension: the specification names the course record but no /courses
// endpoints): create, list, read, change (revision-checked, with the whole stage list) and
// delete (soft: the training record survives). Courses are kept apart from the six wiki
// namespaces (not listed by /wikis, not offered by suggest).
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Empty, errorResponses, IdParam } from '../../http/schemas.js';
import { notFound, unprocessable, type FieldError } from '../../http/errors.js';
import { requireUser, type AuthUser } from '../../http/auth.js';
import { forbiddenUnless } from '../../http/policy.js';
import { likeEscape } from '../../db/helpers.js';
import { answeringConflict } from '../content/revisions.js';
import { guideRowReadable } from '../shared/guide-access.js';
import { Course, CourseCreate, CourseCreated, CourseListQuery, CoursePatch, RevisionQuery, type StageInput } from './courses.schemas.js';
import { findCourse } from './courses.queries.js';
import { courseRecords } from './courses.records.js';
import { managesCourses, readsUser } from './courses.access.js';
import { createCourse, deleteCourse, editCourse } from './courses.service.js';
import { workLogPdfContent } from './courses.pdf.js';
import { bringUpToDate } from '../shared/course-progress.js';
import { findEntry } from '../work-log/work-log.queries.js';
import { readsEntry } from '../work-log/work-log.access.js';

const TAG = ['Courses (extension)'];
const CourseParam = IdParam('wikiid');
const ORDER_COLUMNS = { title: 'title_lower', status: 'enabled', stages_count: 'stages_count', modified_date: 'modified_date', assignee_count: 'assignee_count', completion_percentage: 'completion_percentage' } as const;

export async function coursesRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, clock, pdfs } = app;

  async function record(wikiid: number, viewer: AuthUser | null, fresh = false) {
    if (fresh && (await findCourse(db, wikiid))) await bringUpToDate(db, clock.now(), { wikiid });
    const row = await findCourse(db, wikiid);
    if (!row) throw notFound('Course');
    return (await courseRecords(db, config, [row], viewer))[0];
  }

  /** Every stage's document exists and is one the caller reads; the assessment fields fit the type (422 naming the field). */
  async function checkStages(user: AuthUser, stages: StageInput[], wikiid: number | null) {
    const errors: FieldError[] = [];
    const guideids = stages.filter((s) => s.doctype === 'guide').map((s) => s.docid);
    const wikiids = stages.filter((s) => s.doctype === 'wiki').map((s) => s.docid);
    const moduleids = stages.filter((s) => s.doctype === 'external_training_module').map((s) => s.docid);
    const teamids = stages.map((s) => s.teamid_signer).filter((x): x is number => x != null);
    const keep = stages.map((s) => s.course_stageid).filter((x): x is number => x != null);
    const [guides, wikis, teams, own, modules] = await Promise.all([
      guideids.length ? db.selectFrom('guides as g').select('g.guideid').distinct().where('g.guideid', 'in', guideids).where('g.deleted', '=', 0).where(guideRowReadable(user, 'g')).execute() : [],
      wikiids.length ? db.selectFrom('wikis').select('wikiid').where('wikiid', 'in', wikiids).execute() : [],
      teamids.length ? db.selectFrom('teams').select('teamid').where('teamid', 'in', teamids).execute() : [],
      keep.length && wikiid != null ? db.selectFrom('course_stages').select('course_stageid').where('course_stageid', 'in', keep).where('wikiid', '=', wikiid).where('active', '=', 1).execute() : [],
      moduleids.length ? db.selectFrom('training_modules').select('external_training_moduleid').where('external_training_moduleid', 'in', moduleids).execute() : [],
    ]);
    const m = new Set(modules.map((r) => r.external_training_moduleid));
    const g = new Set(guides.map((r) => r.guideid));
    const w = new Set(wikis.map((r) => r.wikiid));
    const t = new Set(teams.map((r) => r.teamid));
    const o = new Set(own.map((r) => r.course_stageid));
    const seen = new Set<number>();
    stages.forEach((s, i) => {
      const f = (name: string) => `stages[${i}].${name}`;
      const bad = (name: string, message: string) => errors.push({ field: f(name), code: 'invalid_value', message, index: i });
      if (s.doctype === 'guide' && !g.has(s.docid)) bad('docid', `There is no guide ${s.docid} you may read.`);
      if (s.doctype === 'wiki' && !w.has(s.docid)) bad('docid', `There is no wiki ${s.docid}.`);
      if (s.doctype === 'external_training_module' && !m.has(s.docid)) bad('docid', `There is no external training module ${s.docid}.`);
      if (s.course_stageid != null) {
        if (!o.has(s.course_stageid) || seen.has(s.course_stageid)) bad('course_stageid', `Stage ${s.course_stageid} is not a stage of this course (or is named twice).`);
        seen.add(s.course_stageid);
      }
      if ((s.frequency_quantity == null) !== (s.frequency_unit == null)) bad('frequency_unit', 'frequency_quantity and frequency_unit go together.');
      if (s.teamid_signer != null && !t.has(s.teamid_signer)) bad('teamid_signer', `There is no team ${s.teamid_signer}.`);
      if (s.assessmenttype !== 'signoff' && s.teamid_signer != null) bad('teamid_signer', 'teamid_signer is for sign-off stages.');
      if (s.assessmenttype === 'signoff' && s.teamid_signer == null) bad('teamid_signer', 'A sign-off stage needs teamid_signer.');
      if (s.assessmenttype !== 'quiz' && (s.quiz_passing_score != null || s.attempts_limit != null)) bad('quiz_passing_score', 'quiz_passing_score and attempts_limit are for quiz stages.');
      if (s.assessmenttype == null && s.stage_assessmentid != null) bad('assessmenttype', 'A stage_assessmentid needs its assessmenttype.');
      if (s.doctype === 'external_training_module' && s.assessmenttype != null) bad('assessmenttype', 'A training module stage carries no assessment.');
    });
    if (errors.length) throw unprocessable(errors);
  }

  const blank = (field: string) => unprocessable([{ field, code: 'invalid_value', message: `${field} must not be blank.` }]);

  app.post('/courses', {
    config: { auth: 'author' },
    schema: {
      tags: TAG,
      summary: 'Create a course (extension)',
      description: 'Authors and Admins. Body: `title`, `contents` (wiki syntax), optionally `publish_date`, `enabled`, `stages` ([{doctype, docid, strictness, frequency_quantity, frequency_unit, assessment fields}], in order). Each document must exist and be readable by the caller. Answers 201 with the course (namespace COURSE) and `courseid`, equal to `wikiid`.',
      body: CourseCreate,
      response: { 201: CourseCreated, ...errorResponses(401, 403, 422) },
    },
  }, async (request, reply) => {
    const user = requireUser(request);
    const b = request.body;
    if (!b.title.trim()) throw blank('title');
    const stages = b.stages ?? [];
    if (stages.some((s) => s.course_stageid != null)) throw unprocessable([{ field: 'stages[0].course_stageid', code: 'invalid_value', message: 'A new course has no stages to keep.' }]);
    await checkStages(user, stages, null);
    const wikiid = await createCourse(db, clock, config, user.userid, { title: b.title.trim(), contents: b.contents, publish_date: b.publish_date ?? null, enabled: b.enabled }, stages, user);
    return reply.status(201).send({ ...(await record(wikiid, user)), courseid: wikiid });
  });

  app.get('/courses', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'List courses (extension)',
      description: '`page`, `pageSize` (default 30), `direction`, `orderby` (title, status, stages_count, modified_date, assignee_count, completion_percentage), `query` (in the title), `disabledOkay` (Authors and Admins: include disabled courses), `userid` (only courses assigned to that user: themself, or a user they manage). Deleted courses are not listed.',
      querystring: CourseListQuery,
      response: { 200: Type.Object({ courses: Type.Array(Course) }), ...errorResponses(401, 403, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const q = request.query;
    const col = ORDER_COLUMNS[q.orderby];
    const dir = q.direction === 'DESC' ? 'desc' : 'asc';
    if (q.userid !== undefined && q.userid !== user.userid) {
      forbiddenUnless(await readsUser(db, user, q.userid), 'Only the user and who manages them see the user\'s courses.');
    }
    if (q.userid !== undefined) await bringUpToDate(db, clock.now(), { userid: q.userid });
    const rows = await db.selectFrom('courses').selectAll()
      .where('deleted', '=', 0)
      .$if(!(q.disabledOkay && managesCourses(user)), (s) => s.where('enabled', '=', 1))
      .$if(!!q.query?.trim(), (s) => s.where('title_lower', 'like', `%${likeEscape(q.query!.trim().toLowerCase())}%`))
      .$if(q.userid !== undefined, (s) => s.where('wikiid', 'in', db.selectFrom('course_assignees').select('wikiid').where('userid', '=', q.userid!).where('active', '=', 1)))
      .orderBy(col, dir).orderBy('wikiid', dir)
      .limit(q.pageSize).offset((q.page - 1) * q.pageSize)
      .execute();
    return { courses: await courseRecords(db, config, rows, user) };
  });

  app.get('/courses/:wikiid', {
    config: { auth: 'user' },
    schema: { tags: TAG, summary: 'A course (extension)', description: 'The course record; each stage\'s `completion` is the caller\'s.', params: CourseParam, response: { 200: Course, ...errorResponses(401, 404, 422) } },
  }, async (request) => record(request.params.wikiid, requireUser(request), true));

  app.patch('/courses/:wikiid', {
    config: { auth: 'author' },
    schema: {
      tags: TAG,
      summary: 'Change a course (extension)',
      description: 'Authors and Admins. Query: the current `revisionid` (409 with the current course otherwise). Body: the fields to change; `stages`, when sent, is the whole ordered list (stages named by `course_stageid` are kept with their completions, others added, the rest removed). Answers the course at its new revision.',
      params: CourseParam,
      querystring: RevisionQuery,
      body: CoursePatch,
      response: { 200: Course, 409: Course, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const { wikiid } = request.params;
    const b = request.body;
    if (!(await findCourse(db, wikiid))) throw notFound('Course');
    if (b.title !== undefined && !b.title.trim()) throw blank('title');
    if (b.stages) await checkStages(user, b.stages, wikiid);
    await answeringConflict(
      () => editCourse(db, clock, user.userid, wikiid, request.query.revisionid, { title: b.title?.trim(), contents: b.contents, publish_date: b.publish_date, enabled: b.enabled }, b.stages, user),
      () => record(wikiid, user),
    );
    return record(wikiid, user);
  });

  app.get('/courses/work_log/:entryid/pdf', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'The PDF of a finished work log entry (extension)',
      description: 'The record a course stage completed through the work log links (`work_log_entry_pdf_url`): guide and revision, steps with the values recorded and who entered them, start, pauses, end (the first 50 stretches of work listed, the rest counted). Whoever may read the entry; 404 until it is finished. Each audit entry of the work log entry is listed with its id and hash (the first 200, the rest counted). Made in a worker thread, one at a time, and kept per entry while what it shows is unchanged (the same entry gives the same bytes); with more than PDF_QUEUE_SIZE PDFs waiting, or one taking longer than PDF_TIMEOUT_MS, 503 with Retry-After.',
      params: IdParam('entryid'),
      response: { 200: { description: 'The PDF.', content: { 'application/pdf': { schema: Type.String({ format: 'binary' }) } } }, ...errorResponses(401, 403, 404, 422, 503) },
    },
  }, async (request, reply) => {
    const user = requireUser(request);
    const row = await findEntry(db, request.params.entryid);
    if (!row || row.status !== 'complete') throw notFound('Finished work log entry');
    forbiddenUnless(await readsEntry(db, config, user, row), 'You may not read this work log entry.');
    const pdf = await pdfs.workLogPdf(await workLogPdfContent(db, clock.now(), row));
    // The schema declares the bytes (a binary string); Fastify sends the Buffer as it is.
    return reply.header('content-type', 'application/pdf').header('content-disposition', `inline; filename="work-log-${row.entryid}.pdf"`).send(pdf as unknown as string);
  });

  app.delete('/courses/:wikiid', {
    config: { auth: 'author' },
    schema: { tags: TAG, summary: 'Delete a course (extension)', description: 'Authors and Admins. The course leaves lists and cannot be assigned; its assignments and completions are kept (the training record).', params: CourseParam, response: { 204: Empty, ...errorResponses(401, 403, 404, 422) } },
  }, async (request, reply) => {
    if (!(await deleteCourse(db, clock, request.params.wikiid, requireUser(request)))) throw notFound('Course');
    return reply.status(204).send(null);
  });
}
