// The translation glossary: terms and their translations into the site's languages.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Empty, errorResponses, Id } from '../../http/schemas.js';
import { notFound, unprocessable } from '../../http/errors.js';
import { requireUser } from '../../http/auth.js';
import { isUniqueViolation } from '../../db/helpers.js';
import { GlossaryEntry, GlossaryListQuery, GlossaryPut, GlossaryPutResult } from './glossary.schemas.js';
import { applyGlossaryPut, deleteGlossaryEntry, glossaryRecords, listGlossaryEntries, loadGlossaryEntries, MAX_GLOSSARY_ENTRIES, requireGlossary } from './glossary.queries.js';

const TAG = ['Translation glossary'];
const ONLY_MULTILINGUAL = 'Only on sites with more than one language (`LANGUAGES`); elsewhere 404.';

export async function glossaryRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config, clock } = app;

  app.get('/translation_glossary/entries', {
    config: { auth: 'user' },
    schema: {
      tags: TAG,
      summary: 'Glossary entries',
      description: `The glossary entries, ordered by entryid (\`order\` ASC, the default, or DESC). Filters: \`source_langid\` (entries whose term is in that language), \`langid\` (entries with a translation into that language). Without \`limit\`, every entry (the specification: "All glossary entries"; the glossary holds at most ${MAX_GLOSSARY_ENTRIES}); with it (1 to 200), a page from \`offset\`. An entry: \`entryid\`, \`source_langid\`, \`term\`, \`translations\` [{langid, term}], \`notes\`, \`created_date\`, \`modified_date\`, \`userid_modified\`. ${ONLY_MULTILINGUAL}`,
      querystring: GlossaryListQuery,
      response: { 200: Type.Array(GlossaryEntry), ...errorResponses(401, 404, 422) },
    },
  }, async (request) => {
    requireGlossary(config);
    return glossaryRecords(db, await listGlossaryEntries(db, request.query));
  });

  app.put('/translation_glossary/entries', {
    config: { auth: 'author' },
    schema: {
      tags: TAG,
      summary: 'Add, modify and/or delete glossary entries',
      description: `Body: \`entries\` (up to 200) and/or \`delete\` (up to 200 entryids). An entry without \`entryid\` is added (or, when its source language has the term already, whatever its case, modifies that entry: PUT creates or replaces): \`term\` required, \`source_langid\` (default: the site's default language), \`notes\`, \`translations\` [{langid, term}]. An entry with \`entryid\` is modified: the fields sent replace the stored ones, and \`translations\`, when sent, is the entry's complete new list (to remove one translation, send the ones that remain; \`[]\` removes them all). Languages must be the site's; a translation cannot be in the source language, nor two in one language. Terms are trimmed, 1 to 255 characters, unique per source language whatever their case (a term twice in a request, or renaming an entry to another entry's term: 422 \`duplicate\`). Every change of the request is checked first: any error is a 422 naming each field (\`entries[i].term\`, \`delete[j]\`...) and nothing is changed. Answers the added and modified entries and the deleted entryids. ${ONLY_MULTILINGUAL}`,
      body: GlossaryPut,
      response: { 200: GlossaryPutResult, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request) => {
    const user = requireUser(request);
    requireGlossary(config);
    const now = clock.now();
    let result: { entryids: number[]; deleted: number[] } | undefined;
    // Two requests adding one term at once: the second meets the unique index, and once
    // more finds the term stored (so it modifies that entry).
    for (let attempt = 1; !result; attempt++) {
      try {
        result = await db.transaction().execute((trx) => applyGlossaryPut(trx, config, now, user.userid, request.body));
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        if (attempt === 2) throw unprocessable([{ field: 'entries', code: 'duplicate', message: 'A term of the request was added to the glossary meanwhile.' }]);
      }
    }
    const rows = await loadGlossaryEntries(db, result.entryids);
    const byId = new Map((await glossaryRecords(db, rows)).map((r) => [r.entryid, r]));
    return { entries: result.entryids.map((id) => byId.get(id)!).filter(Boolean), deleted: result.deleted };
  });

  app.delete('/translation_glossary/entries/:entryid', {
    config: { auth: 'author' },
    schema: {
      tags: TAG,
      summary: 'Delete a glossary entry',
      description: `Deletes the entry with its translations. Answers 204; 404 when there is no such entry. ${ONLY_MULTILINGUAL}`,
      params: Type.Object({ entryid: Id() }),
      response: { 204: Empty, ...errorResponses(401, 403, 404, 422) },
    },
  }, async (request, reply) => {
    requireGlossary(config);
    const { entryid } = request.params;
    await db.transaction().execute(async (trx) => {
      if (!(await deleteGlossaryEntry(trx, entryid))) throw notFound('Glossary entry');
    });
    return reply.status(204).send(null);
  });
}
