// The work log: users performing guides, with a status that moves by the state machine
// below, the time spent, and what was recorded on each step.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import { Empty, errorResponses, Id } from '../../http/schemas.js';
import { forbidden, invalidField, notFound, unprocessable, type FieldError } from '../../http/errors.js';
import { hasPrivilege, parsePrivileges, requireUser, type AuthUser } from '../../http/auth.js';
import { fromBool } from '../../db/helpers.js';
import { findGuideRow, guideAccess } from '../guides/guides.queries.js';
import { StepDataPut, SuspendedQuery, TransitionBody, WorkLogCreate, WorkLogEntry, WorkLogListQuery, type WorkLogStatus } from './work-log.schemas.js';
import { actsOnEntry, findEntry, listableBy, readsEntry, stepsOfRevision, workLogRecords, type WorkLogRow } from './work-log.queries.js';

const TAG = ['Work log'];
const EntryParam = Type.Object({ entryid: Id() });

type Action = 'pause' | 'resume' | 'suspend' | 'finish' | 'cancel' | 'assume';

/** The state machine: which statuses each action leaves from, and where it leads. */
export const TRANSITIONS: Record<Action, { from: WorkLogStatus[]; to: WorkLogStatus; done: string; summary: string; description: string }> = {
  pause: { from: ['in_progress'], to: 'paused', done: 'paused', summary: 'Pause a work log entry', description: 'in_progress -> paused: the time spent stops counting. The assignee, a Moderator or an Admin.' },
  resume: { from: ['paused', 'suspended'], to: 'in_progress', done: 'resumed', summary: 'Resume a work log entry', description: 'paused or suspended -> in_progress. The assignee, a Moderator or an Admin (another user takes over a suspended entry with assume).' },
  suspend: { from: ['in_progress', 'paused'], to: 'suspended', done: 'suspended', summary: 'Suspend a work log entry', description: 'in_progress or paused -> suspended: left for its assignee to resume or for another user to assume (listed by `GET /work_log/{guideid}/suspended`). The assignee, a Moderator or an Admin.' },
  finish: { from: ['in_progress', 'paused'], to: 'finished', done: 'finished', summary: 'Finish a work log entry', description: 'in_progress or paused -> finished (final): sets `end_date`. The assignee, a Moderator or an Admin.' },
  cancel: { from: ['in_progress', 'paused', 'suspended'], to: 'cancelled', done: 'cancelled', summary: 'Cancel a work log entry', description: 'in_progress, paused or suspended -> cancelled (final): sets `end_date`. The assignee, a Moderator or an Admin.' },
  assume: { from: ['suspended'], to: 'in_progress', done: 'assumed', summary: 'Take over a suspended work log entry', description: 'suspended -> in_progress, assigned to the caller from then on (the step data stays). Any logged-in user who may read the guide, other than the assignee (who resumes it instead).' },
};

const FINAL: WorkLogStatus[] = ['finished', 'cancelled'];
const EDITABLE: WorkLogStatus[] = ['in_progress', 'paused'];
const words = (list: string[]) => list.map((s) => s.replace('_', ' ')).join(' or ');

/** A 422 naming the status: the request does not fit the entry's state. */
const badTransition = (row: WorkLogRow, message: string) =>
  unprocessable([{ field: 'status', code: 'invalid_transition', message: `${message} This entry is ${row.status.replace('_', ' ')}.` }]);

export async function workLogRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, clock } = app;

  const records = (rows: WorkLogRow[]) => workLogRecords(db, clock.now(), rows);
  const record = async (entryid: number) => {
    const row = await findEntry(db, entryid);
    if (!row) throw notFound('Work log entry');
    return (await records([row]))[0];
  };

  /** The entry, readable by the caller: 404 when there is none, 403 when it may not be read. */
  async function readable(request: FastifyRequest, entryid: number): Promise<{ user: AuthUser; row: WorkLogRow }> {
    const user = requireUser(request);
    const row = await findEntry(db, entryid);
    if (!row) throw notFound('Work log entry');
    if (!(await readsEntry(db, config, user, row))) throw forbidden('You may not read this work log entry: its guide is private.');
    return { user, row };
  }

  /** After a conditional UPDATE that changed no row: why (gone, or no longer in a fitting state). */
  async function lost(entryid: number, message: string): Promise<never> {
    const now = await findEntry(db, entryid);
    if (!now) throw notFound('Work log entry');
    throw badTransition(now, `${message} It changed meanwhile.`);
  }

  app.get('/work_log', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'List work log entries',
      description: 'Entries ordered by entryid (`order` ASC, the default, or DESC), filtered by `userid` (assignee), `guideid` and `status`; `offset`, `limit` (1 to 200, default 20). Moderators, Authors and Admins see every entry; other users their own and those on public guides (an entry on a private guide they may read is read with `GET /work_log/{entryid}`).',
      querystring: WorkLogListQuery,
      response: { 200: Type.Array(WorkLogEntry), ...errorResponses(401, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const q = request.query;
    let query = listableBy(db.selectFrom('work_log as w').selectAll('w'), user);
    if (q.userid !== undefined) query = query.where('w.userid', '=', q.userid);
    if (q.guideid !== undefined) query = query.where('w.guideid', '=', q.guideid);
    if (q.status !== undefined) query = query.where('w.status', '=', q.status);
    return records(await query.orderBy('w.entryid', q.order === 'DESC' ? 'desc' : 'asc').limit(q.limit).offset(q.offset).execute());
  });

  app.get('/work_log/:guideid/suspended', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Suspended work log entries of a guide',
      description: 'The guide\'s suspended entries (any assignee), to resume or assume, ordered by entryid; `langid` filters by language; `offset`, `limit`. Those who may read the guide (404 when there is no such guide, 403 when it is private to the caller).',
      params: Type.Object({ guideid: Id() }),
      querystring: SuspendedQuery,
      response: { 200: Type.Array(WorkLogEntry), ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const { guideid } = request.params;
    const q = request.query;
    const guide = await findGuideRow(db, config, guideid, q.langid);
    if (!guide) throw notFound('Guide');
    if (!(await guideAccess(db, user, guide)).read) throw forbidden('This guide is private.');
    let query = listableBy(db.selectFrom('work_log as w').selectAll('w'), user).where('w.guideid', '=', guideid).where('w.status', '=', 'suspended');
    if (q.langid) query = query.where('w.langid', '=', q.langid);
    return records(await query.orderBy('w.entryid').limit(q.limit).offset(q.offset).execute());
  });

  app.get('/work_log/:entryid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'One work log entry',
      description: 'Its assignee and creator, Moderators, Admins, and those who may read its guide.',
      params: EntryParam,
      response: { 200: WorkLogEntry, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => (await records([(await readable(request, request.params.entryid)).row]))[0]);

  app.post('/work_log', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Start a work log entry',
      description: 'Starts performing a guide: `guideid` (required), `langid` (default: the site\'s default language when the guide has it, else its first), `revisionid` (a kept revision of the guide in that language; default its current one), `userid` (assign it to another user: Moderators and Admins only), `notes`. The guide must be one the caller (and the assignee) may read. The entry starts in_progress. Answers 201 with the entry.',
      body: WorkLogCreate,
      response: { 201: WorkLogEntry, ...errorResponses(401, 403, 422) },
    },
  }, async (request, reply) => {
    const user = requireUser(request);
    const b = request.body;
    const guide = await findGuideRow(db, config, b.guideid, b.langid);
    if (!guide) throw invalidField(b.langid ? 'langid' : 'guideid', b.langid ? `Guide ${b.guideid} has no ${b.langid} version.` : `No guide ${b.guideid}.`);
    if (!(await guideAccess(db, user, guide)).read) throw forbidden('This guide is private.');
    let assignee = user.userid;
    if (b.userid !== undefined && b.userid !== user.userid) {
      if (!hasPrivilege(user, 'Moderator')) throw forbidden('Only Moderators and Admins assign an entry to another user.');
      const other = await db.selectFrom('users').select(['userid', 'username', 'enabled', 'privileges']).where('userid', '=', b.userid).executeTakeFirst();
      if (!other || !other.enabled) throw invalidField('userid', `No active user ${b.userid}.`);
      const asOther: AuthUser = { userid: other.userid, username: other.username, privileges: parsePrivileges(other.privileges), tokenHash: '', impersonatedBy: null };
      if (!(await guideAccess(db, asOther, guide)).read) throw invalidField('userid', `User ${other.userid} may not read this guide.`);
      assignee = other.userid;
    }
    let revisionid = guide.revisionid;
    if (b.revisionid !== undefined && b.revisionid !== guide.revisionid) {
      const rev = await db.selectFrom('guide_revisions').select('revisionid').where('revisionid', '=', b.revisionid)
        .where('guideid', '=', guide.guideid).where('langid', '=', guide.langid).executeTakeFirst();
      if (!rev) throw invalidField('revisionid', `Revision ${b.revisionid} is not a revision of guide ${guide.guideid} in ${guide.langid}.`);
      revisionid = rev.revisionid;
    }
    const now = clock.now();
    const { entryid } = await db.transaction().execute((trx) => trx.insertInto('work_log').values({
      guideid: guide.guideid, langid: guide.langid, revisionid, userid: assignee, userid_created: user.userid, status: 'in_progress', notes: b.notes?.trim() ?? '',
      start_date: now, end_date: null, status_date: now, modified_date: now, active_seconds: 0, active_since: now,
    }).returning('entryid').executeTakeFirstOrThrow());
    return reply.status(201).send(await record(entryid));
  });

  app.put('/work_log/:entryid/stepData', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Record data on steps of a work log entry',
      description: 'Body `{"steps": [{stepid, checked, value, notes}]}`: each listed step\'s record replaces the stored one (left out: unchecked, no value, no notes; an empty record removes the step\'s data); steps not listed keep theirs. The stepids must be steps of the guide revision performed (422 naming `steps[i].stepid` otherwise). Only while the entry is in progress or paused (422 `invalid_transition` otherwise). The assignee, a Moderator or an Admin. Answers the entry.',
      params: EntryParam,
      body: StepDataPut,
      response: { 200: WorkLogEntry, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const { user, row } = await readable(request, request.params.entryid);
    if (!actsOnEntry(user, row)) throw forbidden('Only the entry\'s assignee, a Moderator or an Admin may record step data.');
    const fail = 'Step data is recorded only while the entry is in progress or paused.';
    if (!EDITABLE.includes(row.status as WorkLogStatus)) throw badTransition(row, fail);
    const steps = request.body.steps;
    const known = await stepsOfRevision(db, row);
    const errors: FieldError[] = [];
    const seen = new Set<number>();
    steps.forEach((s, i) => {
      if (!known.has(s.stepid)) errors.push({ field: `steps[${i}].stepid`, code: 'invalid_value', message: `Step ${s.stepid} is not a step of the guide revision performed.`, index: i });
      else if (seen.has(s.stepid)) errors.push({ field: `steps[${i}].stepid`, code: 'duplicate', message: `Step ${s.stepid} is listed twice.`, index: i });
      seen.add(s.stepid);
    });
    if (errors.length) throw unprocessable(errors);
    const now = clock.now();
    const values = steps.map((s) => ({ entryid: row.entryid, stepid: s.stepid, checked: fromBool(s.checked), value: s.value ?? null, notes: s.notes?.trim() ?? '', modified_date: now, userid_modified: user.userid }))
      .filter((v) => v.checked || v.value !== null || v.notes !== '');
    const changed = await db.transaction().execute(async (trx) => {
      // Locks the entry in a state that takes step data before touching its steps.
      const out = await trx.updateTable('work_log').set({ modified_date: now })
        .where('entryid', '=', row.entryid).where('status', 'in', EDITABLE).where('userid', '=', row.userid).executeTakeFirst();
      if (Number(out.numUpdatedRows) === 0) return 0;
      if (steps.length) await trx.deleteFrom('work_log_steps').where('entryid', '=', row.entryid).where('stepid', 'in', steps.map((s) => s.stepid)).execute();
      if (values.length) await trx.insertInto('work_log_steps').values(values).execute();
      return 1;
    });
    if (changed === 0) await lost(row.entryid, fail);
    return record(row.entryid);
  });

  for (const [action, rule] of Object.entries(TRANSITIONS) as Array<[Action, (typeof TRANSITIONS)[Action]]>) {
    app.post(`/work_log/:entryid/${action}`, {
      config: { auth: 'user' },
      schema: {
        tags: TAG,
        summary: rule.summary,
        description: `${rule.description} Optional body \`{"notes"}\` replaces the entry's notes. Answers the entry; an entry not in a fitting status is a 422 (\`invalid_transition\`) that changes nothing, so of two simultaneous transitions of one entry only one succeeds.`,
        params: EntryParam,
        body: TransitionBody,
        // A state change of an existing entry, not a creation (the reliability suites race it as one).
        'x-transition': true,
        response: { 200: WorkLogEntry, ...errorResponses(401, 403, 404, 422) },
      },
    }, async (request) => {
      const { user, row } = await readable(request, request.params.entryid);
      if (action !== 'assume' && !actsOnEntry(user, row)) throw forbidden('Only the entry\'s assignee, a Moderator or an Admin may do this.');
      const fail = `Only an entry that is ${words(rule.from)} can be ${rule.done}.`;
      if (!rule.from.includes(row.status as WorkLogStatus)) throw badTransition(row, fail);
      if (action === 'assume' && row.userid === user.userid) throw badTransition(row, 'The entry is assigned to you already: resume it.');
      const now = clock.now();
      const notes = request.body?.notes;
      const changed = await db.transaction().execute(async (trx) => {
        const out = await trx.updateTable('work_log').set({
          status: rule.to,
          status_date: now,
          modified_date: now,
          // The open in-progress period, if any, is closed; a new one opens when the entry goes in progress.
          active_seconds: sql<number>`active_seconds + (case when active_since is null or active_since > ${now} then 0 else ${now} - active_since end)`,
          active_since: rule.to === 'in_progress' ? now : null,
          end_date: FINAL.includes(rule.to) ? now : null,
          ...(notes !== undefined ? { notes: notes.trim() } : {}),
          ...(action === 'assume' ? { userid: user.userid } : {}),
        }).where('entryid', '=', row.entryid).where('status', '=', row.status).where('userid', '=', row.userid).executeTakeFirst();
        return Number(out.numUpdatedRows);
      });
      if (changed === 0) await lost(row.entryid, fail);
      return record(row.entryid);
    });
  }

  app.delete('/work_log/:entryid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Delete a work log entry',
      description: 'Deletes the entry and its step data, whatever its status. The assignee, a Moderator or an Admin. Answers 204.',
      params: EntryParam,
      response: { 204: Empty, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request, reply) => {
    const { user, row } = await readable(request, request.params.entryid);
    if (!actsOnEntry(user, row)) throw forbidden('Only the entry\'s assignee, a Moderator or an Admin may delete it.');
    await db.transaction().execute(async (trx) => {
      await trx.deleteFrom('work_log_steps').where('entryid', '=', row.entryid).execute();
      // A concurrent DELETE that lost the race removes nothing and answers 404.
      const gone = await trx.deleteFrom('work_log').where('entryid', '=', row.entryid).executeTakeFirst();
      if (Number(gone.numDeletedRows) === 0) throw notFound('Work log entry');
    });
    return reply.status(204).send(null);
  });
}
