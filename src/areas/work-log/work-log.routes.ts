// The work log: users performing guides, in the shape its clients use (the platform's
// automation app and the live sites' API pages): a status that moves by the state machine
// below, the time spent (timings: each stretch, with who spent it), and the values of the
// form fields of the revision performed, each with who entered it.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Empty, errorResponses, Id } from '../../http/schemas.js';
import { forbidden, invalidField, notFound, unprocessable, type FieldError } from '../../http/errors.js';
import { isAdmin, parsePrivileges, requireUser, type AuthUser } from '../../http/auth.js';
import { findGuideRow } from '../guides/guides.queries.js';
import { canReadGuide, guideAccess } from '../guides/guides.access.js';
import { mayReadRevision, revisionShown } from '../shared/guide-reader.js';
import { StepDataPut, SuspendedQuery, TransitionBody, WorkLogCreate, WorkLogEntry, WorkLogList, WorkLogListQuery, type WorkLogStatus } from './work-log.schemas.js';
import { findAssignee, findEntry, formOf, guideRevisionId, listEntries, suspendedEntries, workLogRecords, type WorkLogRow } from './work-log.queries.js';
import { storedValue } from './work-log.values.js';
import { actsOnEntry, canAssignOthers, mayDeleteEntry, readsEntry } from './work-log.access.js';
import { deleteEntry, EDITABLE, recordStepData, startEntry, transitionEntry } from './work-log.service.js';
import { forbiddenUnless } from '../../http/policy.js';

const TAG = ['Work log'];
const EntryParam = Type.Object({ entryid: Id() });

type Action = 'pause' | 'resume' | 'suspend' | 'finish' | 'cancel' | 'assume';

/** The state machine: which statuses each action leaves from, and where it leads. */
export const TRANSITIONS: Record<Action, { from: WorkLogStatus[]; to: WorkLogStatus; done: string; summary: string; description: string }> = {
  pause: { from: ['started'], to: 'paused', done: 'paused', summary: 'Pause a work log entry', description: 'started -> paused: the time spent stops counting and the open timing closes. The assignee, a Moderator or an Admin.' },
  resume: { from: ['paused', 'suspended'], to: 'started', done: 'resumed', summary: 'Resume a work log entry', description: 'paused or suspended -> started: a new timing opens. The assignee, a Moderator or an Admin (another user takes over a suspended entry with assume).' },
  suspend: { from: ['started', 'paused'], to: 'suspended', done: 'suspended', summary: 'Suspend a work log entry', description: 'started or paused -> suspended: left for its assignee to resume or for another user to assume (listed by `GET /work_log/{guideid}/suspended`); the open timing closes. The assignee, a Moderator or an Admin.' },
  finish: { from: ['started', 'paused'], to: 'complete', done: 'finished', summary: 'Finish a work log entry', description: 'started or paused -> complete (final): sets `endtime`, closes the open timing. A required field of the revision performed without a value (a required checkbox unchecked) is a 422 listing them (`fields.<field_revisionid>`). The assignee, a Moderator or an Admin.' },
  cancel: { from: ['started', 'paused', 'suspended'], to: 'cancelled', done: 'cancelled', summary: 'Cancel a work log entry', description: 'started, paused or suspended -> cancelled (final): sets `endtime` and `cancelled`, closes the open timing. The assignee, a Moderator or an Admin.' },
  assume: { from: ['suspended'], to: 'started', done: 'assumed', summary: 'Take over a suspended work log entry', description: 'suspended -> started, assigned to the caller from then on: a timing opens for them; the values recorded so far stay, each with who entered it. Any logged-in user who may read the guide in the entry\'s language, other than the assignee (who resumes it instead).' },
};

const FINAL: WorkLogStatus[] = ['complete', 'cancelled'];

/** A 422 naming the status: the request does not fit the entry's state. */
const badTransition = (row: WorkLogRow, message: string) =>
  unprocessable([{ field: 'status', code: 'invalid_transition', message: `${message} This entry is ${row.status}.` }]);


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
    if (!(await readsEntry(db, config, user, row))) throw forbidden('You may not read this work log entry: its guide is private in its language.');
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
      description: 'Answers `{"results": [entry, ...]}`, ordered by entryid (`order` ASC, the default, or DESC), filtered by `guideid`, `userid` (assignee), `workorderid`, `status` and `langid`; `offset`, `limit` (1 to 200, default 20). Moderators and Admins see every entry; others the entries assigned to them or started by them, and those whose guide they read in the entry\'s language.',
      querystring: WorkLogListQuery,
      response: { 200: WorkLogList, ...errorResponses(401, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const q = request.query;
    return { results: await records(await listEntries(db, user, q)) };
  });

  app.get('/work_log/:guideid/suspended', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Suspended work log entries of a guide',
      description: 'Answers `{"results": [entry, ...]}`: the guide\'s suspended entries (any assignee), to resume or assume, ordered by entryid, in the languages the caller reads the guide in (or their own); `langid` filters by language; `offset`, `limit`. Those who may read the guide (404 when there is no such guide, 403 when it is private to the caller).',
      params: Type.Object({ guideid: Id() }),
      querystring: SuspendedQuery,
      response: { 200: WorkLogList, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    const { guideid } = request.params;
    const q = request.query;
    const guide = await findGuideRow(db, config, guideid, q.langid);
    if (!guide) throw notFound('Guide');
    if (!(await canReadGuide(db, user, guide))) throw forbidden('This guide is private.');
    return { results: await records(await suspendedEntries(db, user, guideid, q)) };
  });

  app.get('/work_log/:entryid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'One work log entry',
      description: 'The entry, in the shape of the list\'s results. Its assignee and creator, Moderators, Admins, and those who may read its guide in its language.',
      params: EntryParam,
      response: { 200: WorkLogEntry, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => (await records([(await readable(request, request.params.entryid)).row]))[0]);

  app.post('/work_log', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Start a work log entry',
      description: 'Starts performing a guide: `guideid` (required), `workorderid` (the client\'s work order, free text), `langid` (default: the site\'s default language when the guide has it, else its first), `revisionid` (a kept revision of the guide in that language; default its current one), `userid` (assign it to another user: Moderators and Admins only), `notes`. `join_code` is not supported (an empty value is ignored, any other is a 422): to carry on another user\'s entry, it is suspended and assumed. The guide must be one the caller (and the assignee) may read. The entry starts `started`, with no timing open (the first step data opens one). Answers 201 with the entry.',
      body: WorkLogCreate,
      response: { 201: WorkLogEntry, ...errorResponses(401, 403, 422) },
    },
  }, async (request, reply) => {
    const user = requireUser(request);
    const b = request.body;
    if (b.join_code) throw invalidField('join_code', 'join_code is not supported on this server: to carry on another user\'s entry, its assignee suspends it and you assume it (POST /work_log/{entryid}/assume).', 'unsupported');
    const guide = await findGuideRow(db, config, b.guideid, b.langid);
    if (!guide) throw invalidField(b.langid ? 'langid' : 'guideid', b.langid ? `Guide ${b.guideid} has no ${b.langid} version.` : `No guide ${b.guideid}.`);
    if (!(await canReadGuide(db, user, guide))) throw forbidden('This guide is private.');
    let assignee = user.userid;
    let performer: AuthUser = user;
    if (b.userid !== undefined && b.userid !== user.userid) {
      forbiddenUnless(canAssignOthers(user), 'Only Moderators and Admins assign an entry to another user.');
      const other = await findAssignee(db, b.userid);
      if (!other || !other.enabled) throw invalidField('userid', `No active user ${b.userid}.`);
      const asOther: AuthUser = { userid: other.userid, username: other.username, privileges: parsePrivileges(other.privileges), tokenHash: '', impersonatedBy: null };
      if (!(await canReadGuide(db, asOther, guide))) throw invalidField('userid', `User ${other.userid} may not read this guide.`);
      assignee = other.userid;
      performer = asOther;
    }
    // The reader rule (areas/shared/guide-reader.ts): the performer performs what readers
    // see (under an approval process, its approved revision) unless they may edit the guide.
    const mayEdit = (await guideAccess(db, performer, guide)).edit;
    const shown = revisionShown(guide, mayEdit);
    if (shown === null) throw invalidField('guideid', `Guide ${guide.guideid} has no approved release yet.`, 'not_released');
    let revisionid = shown;
    if (b.revisionid !== undefined && b.revisionid !== shown) {
      const rev = await guideRevisionId(db, guide.guideid, guide.langid, b.revisionid);
      if (rev === undefined || !(await mayReadRevision(db, guide, mayEdit, rev))) throw invalidField('revisionid', `Revision ${b.revisionid} is not a revision of guide ${guide.guideid} in ${guide.langid} that the performer may read.`);
      revisionid = rev;
    }
    const now = clock.now();
    const entryid = await startEntry(db, {
      guideid: guide.guideid, langid: guide.langid, revisionid, userid: assignee, userid_created: user.userid, status: 'started', notes: b.notes?.trim() ?? '',
      workorderid: b.workorderid?.trim() || null, start_date: now, end_date: null, status_date: now, modified_date: now, active_seconds: 0, active_since: now,
    }, user);
    return reply.status(201).send(await record(entryid));
  });

  app.put('/work_log/:entryid/stepData', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Record form field values of a work log entry',
      description: 'Body `{"fields": {"<field_revisionid>": value, ...}, "lasttimingid"?: timingid}`. Each value is kept as a string (numbers as written, true/false as "1"/"0") with the caller as who entered it; null or "" removes it; fields not sent keep theirs. A field id that is not a field of the guide revision performed, or a value its type does not take (a number field, a checkbox, a choice among its options), is a 422 naming `fields.<id>`, and nothing is stored. `lasttimingid` must be the open timing (422 naming it otherwise): it closes (for the step of the fields sent) and the next one opens; without it, a timing opens when none is. Only while the entry is started or paused (422 `invalid_transition` otherwise). The assignee, a Moderator or an Admin. Answers 200 with the entry.',
      params: EntryParam,
      body: StepDataPut,
      response: { 200: WorkLogEntry, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const { user, row } = await readable(request, request.params.entryid);
    forbiddenUnless(actsOnEntry(user, row), 'Only the entry\'s assignee, a Moderator or an Admin may record step data.');
    const fail = 'Step data is recorded only while the entry is started or paused.';
    if (!EDITABLE.includes(row.status as WorkLogStatus)) throw badTransition(row, fail);
    const form = await formOf(db, row);
    const errors: FieldError[] = [];
    const values: Array<{ fid: number; stepid: number; value: string | null }> = [];
    for (const [key, sent] of Object.entries(request.body.fields)) {
      const name = `fields.${key}`;
      const fid = /^\d{1,10}$/.test(key) ? Number(key) : NaN;
      const known = form.fields.get(fid);
      if (!known) {
        errors.push({ field: name, code: 'invalid_value', message: `${key} is not a field of the guide revision performed (revision ${row.revisionid}).` });
        continue;
      }
      const out = storedValue(known.field, name, sent);
      if ('error' in out) errors.push(out.error);
      else values.push({ fid, stepid: known.stepid, value: out.value });
    }
    if (errors.length) throw unprocessable(errors);
    // The stretch closed belongs to the step of the fields sent (the last one, in the revision's order).
    const stepOrder = [...form.fields.values()].map((f) => f.stepid);
    const closedStep = values.length ? values.map((v) => v.stepid).sort((a, b) => stepOrder.indexOf(a) - stepOrder.indexOf(b)).at(-1)! : null;
    const last = request.body.lasttimingid ?? null;
    const now = clock.now();
    const changed = await recordStepData(db, row, user.userid, values, closedStep, last, now);
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
      if (action !== 'assume') forbiddenUnless(actsOnEntry(user, row), 'Only the entry\'s assignee, a Moderator or an Admin may do this.');
      const fail = `Only an entry that is ${rule.from.join(' or ')} can be ${rule.done}.`;
      if (!rule.from.includes(row.status as WorkLogStatus)) throw badTransition(row, fail);
      if (action === 'assume' && row.userid === user.userid) throw badTransition(row, 'The entry is assigned to you already: resume it.');
      const form = action === 'finish' ? await formOf(db, row) : null;
      const now = clock.now();
      const notes = request.body?.notes;
      const changed = await transitionEntry(db, row, { to: rule.to, final: FINAL.includes(rule.to), notes, assignTo: action === 'assume' ? user.userid : undefined, form }, now, user, action);
      if (changed === 0) await lost(row.entryid, fail);
      return record(row.entryid);
    });
  }

  app.delete('/work_log/:entryid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Delete a work log entry',
      description: 'Deletes the entry with its values and timings, whatever its status. Its creator while everything in it is theirs (it is assigned to them and no one else entered a value or spent a timing on it), or an Admin: an entry another user took part in keeps who did which part. Answers 204.',
      params: EntryParam,
      response: { 204: Empty, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request, reply) => {
    const { user, row } = await readable(request, request.params.entryid);
    const admin = isAdmin(user);
    const refusal = 'Only the entry\'s creator, while no one else took part in it, or an Admin may delete it.';
    forbiddenUnless(mayDeleteEntry(user, row), refusal);
    const gone = await deleteEntry(db, row.entryid, admin ? null : user.userid, user, clock.now());
    if (!gone) {
      if (!(await findEntry(db, row.entryid))) throw notFound('Work log entry');
      throw forbidden(`${refusal} Another user took part in this entry.`);
    }
    return reply.status(204).send(null);
  });
}
