// The work log: users performing guides, in the shape its clients use (the platform's
// automation app and the live sites' API pages): a status that moves by the state machine
// below, the time spent (timings: each stretch, with who spent it), and the values of the
// form fields of the revision performed, each with who entered it.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { sql } from 'kysely';
import { Empty, errorResponses, Id } from '../../http/schemas.js';
import { forbidden, invalidField, notFound, unprocessable, type FieldError } from '../../http/errors.js';
import { hasPrivilege, isAdmin, parsePrivileges, requireUser, type AuthUser } from '../../http/auth.js';
import { findGuideRow, type Db } from '../guides/guides.queries.js';
import { guideAccess } from '../guides/guides.access.js';
import { StepDataPut, SuspendedQuery, TransitionBody, WorkLogCreate, WorkLogEntry, WorkLogList, WorkLogListQuery, type WorkLogStatus } from './work-log.schemas.js';
import { actsOnEntry, findEntry, formOf, listableBy, readsEntry, workLogRecords, type WorkLogRow } from './work-log.queries.js';
import { fillsRequired, storedValue } from './work-log.values.js';

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
const EDITABLE: WorkLogStatus[] = ['started', 'paused'];

/** A 422 naming the status: the request does not fit the entry's state. */
const badTransition = (row: WorkLogRow, message: string) =>
  unprocessable([{ field: 'status', code: 'invalid_transition', message: `${message} This entry is ${row.status}.` }]);

/** A 422 thrown inside a transaction, to roll it back. */
class Refused extends Error {
  constructor(readonly errors: FieldError[]) {
    super('refused');
  }
}

const openTiming = (trx: Db, entryid: number) =>
  trx.selectFrom('work_log_timings').select(['timingid']).where('entryid', '=', entryid).where('end_date', 'is', null).orderBy('timingid', 'desc').executeTakeFirst();
const closeTimings = (trx: Db, entryid: number, now: number, stepid: number | null = null) =>
  trx.updateTable('work_log_timings').set({ end_date: now, stepid }).where('entryid', '=', entryid).where('end_date', 'is', null).execute();
const startTiming = (trx: Db, entryid: number, userid: number, now: number) =>
  trx.insertInto('work_log_timings').values({ entryid, stepid: null, userid, start_date: now, end_date: null }).execute();

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

  /** Runs `fn` in a transaction; a `Refused` thrown inside rolls it back and answers 422. */
  async function refusable<T>(fn: (trx: Db) => Promise<T>): Promise<T> {
    try {
      return await db.transaction().execute(fn);
    } catch (err) {
      if (err instanceof Refused) throw unprocessable(err.errors);
      throw err;
    }
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
    let query = listableBy(db.selectFrom('work_log as w').selectAll('w'), user);
    if (q.userid !== undefined) query = query.where('w.userid', '=', q.userid);
    if (q.guideid !== undefined) query = query.where('w.guideid', '=', q.guideid);
    if (q.workorderid !== undefined) query = query.where('w.workorderid', '=', q.workorderid);
    if (q.status !== undefined) query = query.where('w.status', '=', q.status);
    if (q.langid !== undefined) query = query.where('w.langid', '=', q.langid);
    return { results: await records(await query.orderBy('w.entryid', q.order === 'DESC' ? 'desc' : 'asc').limit(q.limit).offset(q.offset).execute()) };
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
    if (!(await guideAccess(db, user, guide)).read) throw forbidden('This guide is private.');
    let query = listableBy(db.selectFrom('work_log as w').selectAll('w'), user).where('w.guideid', '=', guideid).where('w.status', '=', 'suspended');
    if (q.langid) query = query.where('w.langid', '=', q.langid);
    return { results: await records(await query.orderBy('w.entryid').limit(q.limit).offset(q.offset).execute()) };
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
      guideid: guide.guideid, langid: guide.langid, revisionid, userid: assignee, userid_created: user.userid, status: 'started', notes: b.notes?.trim() ?? '',
      workorderid: b.workorderid?.trim() || null, start_date: now, end_date: null, status_date: now, modified_date: now, active_seconds: 0, active_since: now,
    }).returning('entryid').executeTakeFirstOrThrow());
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
    if (!actsOnEntry(user, row)) throw forbidden('Only the entry\'s assignee, a Moderator or an Admin may record step data.');
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
    const changed = await refusable(async (trx) => {
      // Locks the entry in a state that takes step data before touching its values and timings.
      const out = await trx.updateTable('work_log').set({ modified_date: now })
        .where('entryid', '=', row.entryid).where('status', 'in', EDITABLE).where('userid', '=', row.userid).executeTakeFirst();
      if (Number(out.numUpdatedRows) === 0) return 0;
      const ids = values.map((v) => v.fid);
      if (ids.length) await trx.deleteFrom('work_log_values').where('entryid', '=', row.entryid).where('field_revisionid', 'in', ids).execute();
      const kept = values.filter((v) => v.value !== null);
      if (kept.length) {
        await trx.insertInto('work_log_values').values(kept.map((v) => ({
          entryid: row.entryid, field_revisionid: v.fid, stepid: v.stepid, value: v.value!, userid: user.userid, modified_date: now,
        }))).execute();
      }
      const open = await openTiming(trx, row.entryid);
      const status = (await trx.selectFrom('work_log').select('status').where('entryid', '=', row.entryid).executeTakeFirstOrThrow()).status;
      if (last !== null) {
        if (open?.timingid !== last) {
          throw new Refused([{ field: 'lasttimingid', code: 'invalid_value', message: open ? `Timing ${last} is not the entry's open timing (${open.timingid}).` : `Timing ${last} is not open: the entry has no open timing.` }]);
        }
        await closeTimings(trx, row.entryid, now, closedStep);
        if (status === 'started') await startTiming(trx, row.entryid, user.userid, now);
      } else if (!open && status === 'started') await startTiming(trx, row.entryid, user.userid, now);
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
      const fail = `Only an entry that is ${rule.from.join(' or ')} can be ${rule.done}.`;
      if (!rule.from.includes(row.status as WorkLogStatus)) throw badTransition(row, fail);
      if (action === 'assume' && row.userid === user.userid) throw badTransition(row, 'The entry is assigned to you already: resume it.');
      const form = action === 'finish' ? await formOf(db, row) : null;
      const now = clock.now();
      const notes = request.body?.notes;
      const performer = action === 'assume' ? user.userid : row.userid;
      const changed = await refusable(async (trx) => {
        const out = await trx.updateTable('work_log').set({
          status: rule.to,
          status_date: now,
          modified_date: now,
          // The open started period, if any, is closed; a new one opens when the entry is started.
          active_seconds: sql<number>`active_seconds + (case when active_since is null or active_since > ${now} then 0 else ${now} - active_since end)`,
          active_since: rule.to === 'started' ? now : null,
          end_date: FINAL.includes(rule.to) ? now : null,
          ...(notes !== undefined ? { notes: notes.trim() } : {}),
          ...(action === 'assume' ? { userid: user.userid } : {}),
        }).where('entryid', '=', row.entryid).where('status', '=', row.status).where('userid', '=', row.userid).executeTakeFirst();
        if (Number(out.numUpdatedRows) === 0) return 0;
        if (form) {
          // Checked after the entry is locked, so that no step data slips in between.
          const stored = new Map((await trx.selectFrom('work_log_values').select(['field_revisionid', 'value']).where('entryid', '=', row.entryid).execute())
            .map((v) => [v.field_revisionid, v.value]));
          const empty = [...form.fields].filter(([fid, f]) => f.field.required && !fillsRequired(f.field, stored.get(fid)));
          if (empty.length) {
            throw new Refused(empty.map(([fid, f]) => ({
              field: `fields.${fid}`, code: 'missing_field', message: `"${f.field.label}" (step ${f.stepid}) is required${f.field.type === 'checkbox' ? ' to be checked' : ''}.`,
            })));
          }
        }
        await closeTimings(trx, row.entryid, now);
        if (rule.to === 'started') await startTiming(trx, row.entryid, performer, now);
        return 1;
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
      description: 'Deletes the entry with its values and timings, whatever its status. Its creator while everything in it is theirs (it is assigned to them and no one else entered a value or spent a timing on it), or an Admin: an entry another user took part in keeps who did which part. Answers 204.',
      params: EntryParam,
      response: { 204: Empty, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request, reply) => {
    const { user, row } = await readable(request, request.params.entryid);
    const admin = isAdmin(user);
    const refusal = 'Only the entry\'s creator, while no one else took part in it, or an Admin may delete it.';
    if (!admin && row.userid_created !== user.userid) throw forbidden(refusal);
    const gone = await db.transaction().execute(async (trx) => {
      let del = trx.deleteFrom('work_log').where('entryid', '=', row.entryid);
      // Checked in the DELETE itself: a value or timing another user adds meanwhile keeps the entry.
      if (!admin) {
        del = del.where('userid_created', '=', user.userid).where('userid', '=', user.userid)
          .where((eb) => eb.not(eb.exists(eb.selectFrom('work_log_values as v').select('v.entryid').where('v.entryid', '=', row.entryid)
            .where((e) => e.or([e('v.userid', 'is', null), e('v.userid', '!=', user.userid)])))))
          .where((eb) => eb.not(eb.exists(eb.selectFrom('work_log_timings as t').select('t.entryid').where('t.entryid', '=', row.entryid)
            .where((e) => e.or([e('t.userid', 'is', null), e('t.userid', '!=', user.userid)])))));
      }
      const out = await del.executeTakeFirst();
      if (Number(out.numDeletedRows) === 0) return false;
      await trx.deleteFrom('work_log_values').where('entryid', '=', row.entryid).execute();
      await trx.deleteFrom('work_log_timings').where('entryid', '=', row.entryid).execute();
      return true;
    });
    if (!gone) {
      if (!(await findEntry(db, row.entryid))) throw notFound('Work log entry');
      throw forbidden(`${refusal} Another user took part in this entry.`);
    }
    return reply.status(204).send(null);
  });
}
