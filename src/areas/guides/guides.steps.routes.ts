// Steps: add, edit, delete, reorder, and the line preview. A step has its own
// revisionid (step PATCH and DELETE take it); reordering takes the guide's, and so does
// adding a step when the client sends it (adding one cannot overwrite anyone's work, so
// clients that send none are served: a documented exception to the versioning rule);
// every step change also moves the guide's revisionid.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Empty, errorResponses } from '../../http/schemas.js';
import { invalidField, notFound } from '../../http/errors.js';
import { requireUser } from '../../http/auth.js';
import { wikiToDoc } from '../../markup/index.js';
import { renderDocs } from '../content/render.js';
import { bulletStyleRecord, stepRecordById } from './guides.records.js';
import { loadBulletStyles } from './guides.queries.js';
import { FullGuide, LangQuery, LineInput, PreviewLine, Revisionid, Step, StepCreate, StepPatch, Id, GuideParam } from './guides.schemas.js';
import {
  checkLineEmbeds, insertStep, lockStep, stepIdsInOrder, validateLines, validateMedia, writeStepOrder,
} from './guides.service.js';
import { changeGuide, currentGuide, editStep } from './guides.changes.js';
import { guideFor } from './guides.access.js';
import { deleteCommentsOn } from '../comments/comments.queries.js';
import { validateFields } from './guides.fields.js';

const TAG = ['Guide steps'];
const StepParam = Type.Object({ guideid: Id(), stepid: Id() });

export async function guideStepsRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config } = app;
  const langs = config.languages;

  app.post('/guides/:guideid/steps', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Add a step',
      description: 'With the guide\'s `revisionid` in the query, it is checked (409 with the current guide when stale). Without one the step is added to the current guide all the same: adding a step overwrites nobody\'s work, so this is a deliberate exception to the versioning rule, for the clients that send none. Either way the step is a new revision of the guide. `lines`: at least one, each with `text`, `bullet` (a style name) or `bullet_styleid`, and `level` 0 to 3 (the first line at 0). `media`: `{"type": "image", "data": [imageid, ...]}` or `{"type": "object", "data": videoid}` (read back with type `video` and the video record). `orderby`: position from 1 (default: last). `fields` (extension): form fields, each `{type, label, required, options}` (type text, number, checkbox or choice; options for a choice). Answers 201 with the whole guide.',
      params: GuideParam,
      querystring: Type.Object({ revisionid: Type.Optional(Revisionid), langid: LangQuery(langs) }),
      body: StepCreate,
      response: { 201: FullGuide, 409: { ...FullGuide, description: 'Stale revisionid: the current guide.' }, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request, reply) => {
    const ctx = await guideFor(app, request, request.params.guideid, request.query.langid, 'edit');
    const b = request.body;
    const lines = validateLines(b.lines, await loadBulletStyles(db));
    await checkLineEmbeds(db, ctx.user!, lines);
    const media = (await validateMedia(db, ctx.user!, b.media)) ?? null;
    const fields = b.fields ? validateFields(b.fields) : undefined;
    await changeGuide(app, ctx, { expected: request.query.revisionid, action: 'step_add' }, (trx, now) =>
      insertStep(trx, ctx.row.guideid, ctx.row.langid, ctx.user?.userid ?? null, now, { title: b.title?.trim() ?? '', orderby: b.orderby, lines, media, fields }));
    return reply.status(201).send(await currentGuide(app, ctx));
  });

  async function stepOf(guideid: number, stepid: number) {
    const step = await db.selectFrom('guide_steps').selectAll().where('stepid', '=', stepid).where('guideid', '=', guideid).executeTakeFirst();
    if (!step) throw notFound('Step');
    return step;
  }

  app.patch('/guides/:guideid/steps/:stepid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Edit a step',
      description: 'Takes the step\'s own `revisionid` (409 with the current step when stale). Changes only the fields sent; `lines` replaces all lines (send `lineid` to keep a line\'s id); `fields` (extension) replaces the form fields (a field unchanged keeps its `field_revisionid`); `orderby` moves the step. The guide\'s revisionid moves too (also in the `X-Guide-Revisionid` header). Answers the step record.',
      params: StepParam,
      querystring: Type.Object({ revisionid: Revisionid }),
      body: StepPatch,
      response: { 200: Step, 409: { ...Step, description: 'Stale revisionid: the current step.' }, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request, reply) => {
    const step = await stepOf(request.params.guideid, request.params.stepid);
    const ctx = await guideFor(app, request, step.guideid, step.langid, 'edit');
    const b = request.body;
    const lines = b.lines ? validateLines(b.lines, await loadBulletStyles(db)) : undefined;
    if (lines) await checkLineEmbeds(db, ctx.user!, lines);
    const media = await validateMedia(db, ctx.user!, b.media);
    const fields = b.fields ? validateFields(b.fields) : undefined;
    await editStep(app, ctx, step.stepid, request.query.revisionid, { title: b.title, lines, media, fields, orderby: b.orderby });
    const [record, guide] = await Promise.all([
      stepRecordById(db, config, step.stepid),
      db.selectFrom('guides').select('revisionid').where('guideid', '=', step.guideid).where('langid', '=', step.langid).executeTakeFirst(),
    ]);
    if (!record) throw notFound('Step');
    if (guide) reply.header('x-guide-revisionid', String(guide.revisionid));
    return record;
  });

  app.delete('/guides/:guideid/steps/:stepid', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Delete a step',
      description: 'Takes the step\'s own `revisionid` (409 with the current step when stale). The remaining steps are numbered again from 1; the guide\'s revisionid moves (its earlier revisions keep the step); the comments on the step are deleted.',
      params: StepParam,
      querystring: Type.Object({ revisionid: Revisionid }),
      response: { 204: Empty, 409: { ...Step, description: 'Stale revisionid: the current step.' }, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request, reply) => {
    const step = await stepOf(request.params.guideid, request.params.stepid);
    const ctx = await guideFor(app, request, step.guideid, step.langid, 'edit');
    await changeGuide(app, ctx, { action: 'step_delete', audited: { stepid: { old: step.stepid } } }, async (trx, now) => {
      await lockStep(trx, step.stepid, now, request.query.revisionid);
      await trx.deleteFrom('guide_lines').where('stepid', '=', step.stepid).execute();
      await trx.deleteFrom('guide_step_images').where('stepid', '=', step.stepid).execute();
      await trx.deleteFrom('guide_steps').where('stepid', '=', step.stepid).execute();
      await deleteCommentsOn(trx, 'step', step.stepid);
      await writeStepOrder(trx, await stepIdsInOrder(trx, step.guideid, step.langid));
    });
    return reply.status(204).send(null);
  });

  app.put('/guides/:guideid/steporder', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Reorder the steps',
      description: 'Body `{"stepids": [...]}`: every step of the guide exactly once (422 otherwise). Takes the guide\'s `revisionid`. Answers the full guide record.',
      params: GuideParam,
      querystring: Type.Object({ revisionid: Revisionid, langid: LangQuery(langs) }),
      body: Type.Object({ stepids: Type.Array(Id(), { maxItems: 1000 }) }, { additionalProperties: false }),
      response: { 200: FullGuide, 409: { ...FullGuide, description: 'Stale revisionid: the current guide.' }, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const ctx = await guideFor(app, request, request.params.guideid, request.query.langid, 'edit');
    const wanted = request.body.stepids;
    await changeGuide(app, ctx, { expected: request.query.revisionid, action: 'steporder' }, async (trx) => {
      const current = await stepIdsInOrder(trx, ctx.row.guideid, ctx.row.langid);
      const same = wanted.length === current.length && new Set(wanted).size === wanted.length && wanted.every((id) => current.includes(id));
      if (!same) throw invalidField('stepids', `stepids must list each of the guide's ${current.length} steps exactly once: ${current.join(', ')}.`);
      await writeStepOrder(trx, wanted);
    });
    return currentGuide(app, ctx);
  });

  app.post('/guides/steps/lines/preview', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Render step lines without saving them',
      description: 'Body `{"lines": [...]}` as in a step. Answers the line records (with `lineid` null) as they would be saved.',
      body: Type.Object({ lines: Type.Array(LineInput, { minItems: 1, maxItems: 200 }) }, { additionalProperties: false }),
      response: { 200: Type.Array(PreviewLine), ...errorResponses(401, 422) },
    },
  }, async (request) => {
    const styles = await loadBulletStyles(db);
    const lines = validateLines(request.body.lines, styles);
    await checkLineEmbeds(db, requireUser(request), lines);
    const html = await renderDocs(db, config, lines.map((l) => wikiToDoc(l.text)), { inline: true });
    return lines.map((l, i) => ({
      text_raw: l.text,
      text_rendered: html[i],
      bullet: l.bullet,
      bullet_styleid: l.bullet_styleid,
      bullet_style: bulletStyleRecord(styles.byId.get(l.bullet_styleid)!),
      level: l.level,
      lineid: null,
    }));
  });
}
