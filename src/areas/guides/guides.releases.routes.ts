// Releases: a kept revision of a guide, released as a major or minor version. Removing
// a release marks it `removed` (it stays listed). The approvals area builds on these.
import { audit, changesOf } from '../../audit/audit.js';
import type { AuthUser } from '../../http/auth.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errorResponses, OffsetLimit, Order, StringEnum } from '../../http/schemas.js';
import { forbidden, invalidField, notFound, unprocessable, type FieldError } from '../../http/errors.js';
import { requireUser } from '../../http/auth.js';
import { LangQuery, Release, ReleaseList, Id, GuideParam } from './guides.schemas.js';
import { findGuideRow } from './guides.queries.js';
import { guideAccess } from './guides.access.js';
import { createRelease, publishReleased, releaseRecords, type ReleaseRow } from './guides.releases.js';
import { guideFor } from './guides.access.js';
import { guideRowReadable, readableLanguages } from './guides.access.js';
import { releaseShown } from '../shared/guide-reader.js';

const TAG = ['Guide releases'];
const ReleaseParam = Type.Object({ releaseid: Id() });
const RELEASE_TYPES = ['major', 'minor'] as const;

export async function guideReleasesRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, clock } = app;
  const langs = config.languages;

  async function existingRelease(releaseid: number) {
    const row = await db.selectFrom('guide_releases').selectAll().where('releaseid', '=', releaseid).executeTakeFirst();
    if (!row) throw notFound('Release');
    return row;
  }
  /** A release is changed by those who may edit its guide. */
  async function editableRelease(request: FastifyRequest, releaseid: number) {
    const row = await existingRelease(releaseid);
    await guideFor(app, request, row.guideid, row.langid, 'edit', { includeDeleted: true });
    return row;
  }
  const one = async (row: ReleaseRow) => (await releaseRecords(db, config, [row]))[0];

  /**
   * Releases a revision inside `trx`: released at once, or, when an approval process
   * applies to the guide, `pending` with the request that decides it.
   */
  async function release(trx: typeof db, now: number, guide: { guideid: number; langid: string; category: string }, r: Omit<Parameters<typeof createRelease>[2], 'status'> & { userid: number }, actor: AuthUser) {
    const processid = await app.guideApprovals.processFor(trx, guide);
    const row = await createRelease(trx, now, { ...r, status: processid === null ? 'released' : 'pending' });
    await auditRelease(trx, actor, now, 'guide.released', row, changesOf(null, { releaseid: row.releaseid, status: row.status, type: row.type, version: row.version }), row.notes);
    if (processid === null) {
      await publishReleased(trx, config, now, row);
      return row;
    }
    const approval_requestid = await app.guideApprovals.openRequest(trx, config, clock, row, processid, r.userid, actor);
    return { ...row, approval_requestid };
  }

  /** Records a change of release `row` of a guide, in its transaction (the guide's history: resource guide). */
  async function auditRelease(trx: typeof db, actor: AuthUser, now: number, action: 'guide.released' | 'guide.release_edited' | 'guide.release_removed', row: ReleaseRow, changes: ReturnType<typeof changesOf>, reason?: string) {
    await audit(trx, {
      action, actor, time: now, resource_type: 'guide', resource_id: row.guideid, langid: row.langid, revisionid_after: row.revisionid,
      changes: { releaseid: { new: row.releaseid }, ...changes }, reason: reason || null,
    });
  }

  /** A release decided by an approval request changes only through the request (sign, cancel). */
  function refuseUnderApproval(row: ReleaseRow, changesStatus: boolean) {
    if (changesStatus && row.approval_requestid != null && row.status !== 'released' && row.status !== 'removed') {
      throw invalidField('status', `Release ${row.releaseid} is ${row.status} by approval request ${row.approval_requestid}; its status changes only through that request.`, 'under_approval');
    }
  }

  app.get('/guides/releases', {
    config: { auth: 'none' },
    schema: {
      tags: TAG,
      summary: 'Releases of every guide, ordered by releaseid',
      description: 'Releases of the guides the caller reads, language by language (a guide public in one language and private in another lists only the public language\'s releases to others): public ones; Admins and Authors every guide\'s; a logged-in user also those of the guides they own or collaborate on and of the languages they contributed to.',
      querystring: Type.Object({
        ...OffsetLimit,
        order: Type.Optional(Order),
        guideid: Type.Optional(Id()),
        langid: Type.Optional(StringEnum(langs)),
        status: Type.Optional(StringEnum(['released', 'removed', 'pending', 'rejected', 'cancelled'] as const)),
      }),
      response: { 200: ReleaseList, ...errorResponses(422) },
    },
  }, async (request) => {
    const q = request.query;
    const user = request.user;
    let sel = db.selectFrom('guide_releases as r').innerJoin('guides as g', (j) => j.onRef('g.guideid', '=', 'r.guideid').onRef('g.langid', '=', 'r.langid'))
      .selectAll('r').where('g.deleted', '=', 0);
    sel = sel.where(guideRowReadable(user, 'g')).where(releaseShown(user, 'r', 'g'));
    if (q.guideid !== undefined) sel = sel.where('r.guideid', '=', q.guideid);
    if (q.langid !== undefined) sel = sel.where('r.langid', '=', q.langid);
    if (q.status !== undefined) sel = sel.where('r.status', '=', q.status);
    const rows = await sel.orderBy('r.releaseid', q.order === 'DESC' ? 'desc' : 'asc').limit(q.limit).offset(q.offset).execute();
    return { releases: await releaseRecords(db, config, rows) };
  });

  app.get('/guides/:guideid/releases', {
    config: { auth: 'none' },
    schema: {
      tags: TAG,
      summary: 'Releases of one guide, ordered by releaseid',
      description: 'Every language of the guide the caller reads unless `langid` is given (the read rule applies per language: the releases of a language private to the caller are left out).',
      params: GuideParam,
      querystring: Type.Object({ ...OffsetLimit, order: Type.Optional(Order), langid: LangQuery(langs) }),
      response: { 200: ReleaseList, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const q = request.query;
    const { guideid } = request.params;
    // Without a langid the caller is answered for the languages they read, not refused for
    // the default one; the guide's own answer (404, 401, 403) only when they read none.
    const readsSome = q.langid === undefined && await db.selectFrom('guides as g').select('g.langid').where('g.guideid', '=', guideid)
      .where('g.deleted', '=', 0).where(guideRowReadable(request.user, 'g')).limit(1).executeTakeFirst();
    if (!readsSome) await guideFor(app, request, guideid, q.langid, 'read');
    let sel = db.selectFrom('guide_releases as r').innerJoin('guides as g', (j) => j.onRef('g.guideid', '=', 'r.guideid').onRef('g.langid', '=', 'r.langid'))
      .selectAll('r').where('r.guideid', '=', guideid).where(releaseShown(request.user, 'r', 'g'));
    if (q.langid !== undefined) sel = sel.where('r.langid', '=', q.langid);
    else sel = sel.where('r.langid', 'in', readableLanguages(guideid, request.user));
    const rows = await sel.orderBy('r.releaseid', q.order === 'DESC' ? 'desc' : 'asc').limit(q.limit).offset(q.offset).execute();
    return { releases: await releaseRecords(db, config, rows) };
  });

  app.post('/guides/releases', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Release a revision of a guide',
      description: 'Body: `guideid`, `langid` (default: as for reading the guide), `revisionid` (a kept revision of that guide; default: the current one), `type` major or minor, `notes`, `version` (default: the next major or minor version after the newest release, from 1.0). Those who may edit the guide. Answers 201 with the release. When an approval process applies to the guide (GET /guides/{guideid}/approvalProcesses), the release is `pending` with its `approval_requestid`: the request\'s last approval makes it `released`, a rejection `rejected`. `reviewed` (extension: "I reviewed this") satisfies a periodic review of the guide once the release is released.',
      body: Type.Object({
        guideid: Id(),
        langid: Type.Optional(StringEnum(langs)),
        revisionid: Type.Optional(Id({ description: 'The revision to release.' })),
        type: StringEnum(RELEASE_TYPES),
        notes: Type.Optional(Type.String({ maxLength: 10_000 })),
        version: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
        reviewed: Type.Optional(Type.Boolean({ description: '"I reviewed this": the release counts as a periodic review of the guide from the moment it is released (default false).' })),
      }, { additionalProperties: false }),
      response: { 201: Release, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request, reply) => {
    const b = request.body;
    const user = requireUser(request);
    const ctx = await guideFor(app, request, b.guideid, b.langid, 'edit');
    const revisionid = b.revisionid ?? ctx.row.revisionid;
    const rev = await db.selectFrom('guide_revisions').select('revisionid').where('revisionid', '=', revisionid)
      .where('guideid', '=', ctx.row.guideid).where('langid', '=', ctx.row.langid).executeTakeFirst();
    if (!rev) throw invalidField('revisionid', `Revision ${revisionid} is not a revision of guide ${ctx.row.guideid} (${ctx.row.langid}).`);
    const row = await db.transaction().execute((trx) => release(trx, clock.now(), ctx.row, {
      guideid: ctx.row.guideid, langid: ctx.row.langid, revisionid, userid: user.userid, type: b.type, notes: b.notes ?? '', version: b.version?.trim() || null, reviewed: b.reviewed === true,
    }, user));
    return reply.status(201).send(await one(row));
  });

  app.patch('/guides/releases/:releaseid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Edit a release',
      description: '`notes`, `version`, `type`, or `status` (released or removed). Those who may edit the guide. The status of a release an approval request decides (pending, rejected, cancelled) changes only through the request (422 `under_approval`).',
      params: ReleaseParam,
      body: Type.Object({
        notes: Type.Optional(Type.String({ maxLength: 10_000 })),
        version: Type.Optional(Type.String({ minLength: 1, maxLength: 50 })),
        type: Type.Optional(StringEnum(RELEASE_TYPES)),
        status: Type.Optional(StringEnum(['released', 'removed'] as const)),
      }, { additionalProperties: false, minProperties: 1 }),
      response: { 200: Release, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const row = await editableRelease(request, request.params.releaseid);
    const b = request.body;
    refuseUnderApproval(row, b.status !== undefined && b.status !== row.status);
    const set: Partial<ReleaseRow> = {};
    if (b.notes !== undefined) set.notes = b.notes;
    if (b.version !== undefined) set.version = b.version.trim();
    if (b.type !== undefined) set.type = b.type;
    if (b.status !== undefined) set.status = b.status;
    await db.transaction().execute(async (trx) => {
      // Released again (it was removed): a guide published, for webhooks. The UPDATE's condition makes one of two racing requests the one.
      const becomesReleased = b.status === 'released' && row.status !== 'released';
      let q = trx.updateTable('guide_releases').set(set).where('releaseid', '=', row.releaseid);
      if (becomesReleased) q = q.where('status', '=', row.status);
      const out = await q.executeTakeFirst();
      if (Number(out.numUpdatedRows) > 0) {
        const changes = changesOf(row as unknown as Record<string, unknown>, set);
        if (changes) await auditRelease(trx, requireUser(request), clock.now(), 'guide.release_edited', row, changes, b.notes);
      }
      if (becomesReleased && Number(out.numUpdatedRows) > 0) {
        const now = clock.now();
        await publishReleased(trx, config, now, { ...row, ...set } as ReleaseRow);
      }
    });
    return one(await existingRelease(row.releaseid));
  });

  app.delete('/guides/releases/:releaseid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Remove a release',
      description: 'Marks the release `removed` (it is kept). Those who may edit the guide. A release an approval request decides is removed once released (422 `under_approval` before). Answers the release.',
      params: ReleaseParam,
      response: { 200: Release, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const row = await editableRelease(request, request.params.releaseid);
    refuseUnderApproval(row, row.status !== 'removed');
    if (row.status !== 'removed') {
      await db.transaction().execute(async (trx) => {
        await trx.updateTable('guide_releases').set({ status: 'removed' }).where('releaseid', '=', row.releaseid).execute();
        await auditRelease(trx, requireUser(request), clock.now(), 'guide.release_removed', row, changesOf(row as unknown as Record<string, unknown>, { status: 'removed' }));
      });
    }
    return one(await existingRelease(row.releaseid));
  });

  app.post('/guides/duplicateReleases', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Release other guides as one release was',
      description: 'Body `{"releaseid": ..., "targets": [{"guideid": ..., "langid"?: ...}]}`: releases the current revision of each target guide with the release\'s type, notes and version (for example the translations of a guide, or guides released together). The caller must be able to read the release\'s guide and edit every target. A target under an approval process gets a `pending` release and a request, as with POST /guides/releases. Answers 201 with `{"releases": [...]}`, one per target, in order.',
      body: Type.Object({
        releaseid: Id(),
        targets: Type.Array(Type.Object({ guideid: Id(), langid: Type.Optional(StringEnum(langs)) }, { additionalProperties: false }), { minItems: 1, maxItems: 50 }),
      }, { additionalProperties: false }),
      response: { 201: ReleaseList, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request, reply) => {
    const user = requireUser(request);
    const source = await existingRelease(request.body.releaseid);
    await guideFor(app, request, source.guideid, source.langid, 'read', { includeDeleted: true });
    const errors: FieldError[] = [];
    const targets: Array<{ guideid: number; langid: string; revisionid: number; category: string }> = [];
    for (const [i, t] of request.body.targets.entries()) {
      const row = await findGuideRow(db, config, t.guideid, t.langid);
      if (!row) {
        errors.push({ field: `targets[${i}].guideid`, code: 'invalid_value', message: `There is no guide ${t.guideid}${t.langid ? ` in ${t.langid}` : ''}.`, index: i });
        continue;
      }
      if (!(await guideAccess(db, user, row)).edit) throw forbidden(`You may not release guide ${row.guideid}.`);
      targets.push(row);
    }
    if (errors.length) throw unprocessable(errors);
    const now = clock.now();
    const rows = await db.transaction().execute(async (trx) => {
      const out: ReleaseRow[] = [];
      for (const g of targets) {
        out.push(await release(trx, now, g, { guideid: g.guideid, langid: g.langid, revisionid: g.revisionid, userid: user.userid, type: source.type, notes: source.notes, version: source.version }, user));
      }
      return out;
    });
    return reply.status(201).send({ releases: await releaseRecords(db, config, rows) });
  });
}
