// GET /suggest/{query}: guides and wikis matching a partly typed query, from the
// database's full-text index (src/db/search.ts), kept in step with every write.
import type { FastifyInstance } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { errorResponses } from '../../http/schemas.js';
import { invalidField } from '../../http/errors.js';
import { searchDocs, searchTokens, type SearchAnswered, type SearchFilter, type SearchHit } from '../../db/search.js';
import { suggestionHits } from './suggest-hits.js';
import { NAMESPACES, WikiLight } from '../wikis/wikis.schemas.js';
import { loadLightWikis } from '../wikis/wikis.queries.js';
import { GuideResult, loadGuideResults } from './search.guides.js';
import { sendCachedAnswerUnder } from '../shared/byte-cache.js';
import { imagesCheck, imagesCheckOf } from '../media/image-object.js';

const TAG = ['Suggest'];
export const SUGGEST_LIMIT = 10;
const DOCTYPES = ['guide', 'wiki', 'device', 'category', 'question', 'all'] as const;
type Doctype = (typeof DOCTYPES)[number];

export const SuggestResponse = Type.Object({
  query: Type.String(),
  results: Type.Array(Type.Union([WikiLight, GuideResult]), { maxItems: SUGGEST_LIMIT }),
});

export const SEARCH_MAX_LIMIT = 200;

const SuggestQuery = Type.Object({
  doctypes: Type.Optional(Type.String({ maxLength: 200, description: 'Comma-separated: guide, wiki (wikis of every namespace), device (ITEM and CATEGORY wikis), category (CATEGORY wikis), question (none yet), all (the default).' })),
  showAllLanguages: Type.Optional(Type.Boolean({ default: false, description: 'Include documents in languages other than the site\'s default.' })),
});

const SearchQuery = Type.Object({
  ...SuggestQuery.properties,
  type: Type.Optional(Type.String({ maxLength: 20, description: 'One doctype (guide, wiki, device, category, question, all); `doctypes` wins when both are sent.' })),
  offset: Type.Integer({ minimum: 0, maximum: 4800, default: 0 }),
  limit: Type.Integer({ minimum: 1, maximum: SEARCH_MAX_LIMIT, default: SUGGEST_LIMIT }),
});

export const SearchResponse = Type.Object({
  query: Type.String(),
  limit: Type.Integer(),
  offset: Type.Integer(),
  totalResults: Type.Integer({ description: 'Documents that matched among the candidates ranked.' }),
  moreResults: Type.Boolean(),
  results: Type.Array(Type.Union([WikiLight, GuideResult]), { maxItems: SEARCH_MAX_LIMIT }),
});

/** What the doctypes ask for, as search targets. */
export function suggestTargets(doctypes: Doctype[]): SearchFilter['targets'] {
  const wikiNamespaces = new Set<string>();
  let guides = false;
  for (const d of doctypes) {
    if (d === 'all') {
      guides = true;
      NAMESPACES.forEach((n) => wikiNamespaces.add(n));
    } else if (d === 'guide') guides = true;
    else if (d === 'wiki') NAMESPACES.forEach((n) => wikiNamespaces.add(n));
    else if (d === 'device') ['ITEM', 'CATEGORY'].forEach((n) => wikiNamespaces.add(n));
    else if (d === 'category') wikiNamespaces.add('CATEGORY');
  }
  const targets: SearchFilter['targets'] = [];
  if (guides) targets.push({ type: 'guide' });
  if (wikiNamespaces.size) targets.push({ type: 'wiki', namespaces: [...wikiNamespaces] });
  return targets;
}

export async function searchRoutes(fastify: FastifyInstance) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { db, config } = app;

  /**
   * A suggestion's check, read again: kept with the answer, so made here, apart from
   * `suggest`, whose closures share one context with its records (V8 keeps a function's
   * captured variables together): made there, it kept every answer's records alive.
   */
  const checkAgain = (guidesAgain: () => Promise<string>, imageids: number[]) => async () => {
    const [g, i] = await Promise.all([guidesAgain(), imagesCheck(db, imageids)]);
    return `${g}|${i}`;
  };

  /** The doctypes a query names (`all` when none), as search targets; 422 naming `field` for an unknown one. */
  function targetsOf(doctypes: string | undefined, field: string): SearchFilter['targets'] {
    const names = (doctypes ?? 'all').split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
    const bad = names.find((n) => !(DOCTYPES as readonly string[]).includes(n));
    if (bad !== undefined) throw invalidField(field, `Unknown doctype "${bad}"; use ${DOCTYPES.join(', ')}.`);
    return suggestTargets((names.length ? names : ['all']) as Doctype[]);
  }

  /** The records of hits, in their order: wikis as suggest shows them, light guide records with `summary` (public guides only). */
  async function recordsOf(hits: SearchHit[]) {
    const [wikis, guides] = await Promise.all([
      loadLightWikis(db, config, hits.filter((h) => h.type === 'wiki').map((h) => ({ wikiid: h.id, langid: h.langid }))),
      loadGuideResults(db, config, hits.filter((h) => h.type === 'guide').map((h) => ({ guideid: h.id, langid: h.langid }))),
    ]);
    const results = hits.map((h) => (h.type === 'wiki' ? wikis : guides.records).get(`${h.id}:${h.langid}`)).filter((r) => r !== undefined);
    return { results, wikis, guides };
  }

  /**
   * The answer, and whether it rests on titles alone. `key` names the query for its kept
   * hits (suggestionHits); without one (nothing typed) the search is asked at once, which
   * answers without reading the database.
   */
  async function suggest(text: string, query: { doctypes?: string; showAllLanguages?: boolean }, key?: string) {
    const targets = targetsOf(query.doctypes, 'doctypes');
    // Nothing to look for (nothing typed, or no letter or digit): no results, and no search.
    if (searchTokens(text).length === 0) return { value: { query: text, results: [] }, fromTitles: true };
    const search = (answered: SearchAnswered) =>
      searchDocs(db, text, { targets, langids: query.showAllLanguages ? undefined : [config.languages[0]] }, { offset: 0, limit: SUGGEST_LIMIT }, answered);
    const { hits, fromTitles } = key === undefined ? { hits: await search({ fromTitles: true }), fromTitles: true } : await suggestionHits(app, key, search);
    const { results, wikis, guides } = await recordsOf(hits);
    // What the answer shows besides what the search stamps follow: the guides' records
    // (the 'guides' stamp, which any edit of any guide moves) and the wikis' images (their
    // removal moves it too). Read again, the same check keeps the answer (byte-cache.ts).
    const images = [...wikis.values()].flatMap((w) => (w.image ? [w.image] : []));
    const check = { value: `${guides.check}|${imagesCheckOf(images)}`, again: checkAgain(guides.again, images.map((i) => i.id)) };
    return { value: { query: text, results }, fromTitles, check };
  }

  const description = `At most ${SUGGEST_LIMIT} guides and wikis in which every word of the query starts a word (of the title, summary or text, or of a comment on them), best first: titles that start with the query, then titles holding every word, then the rest; within each, shorter titles first, then titles by code point, then by type and id: the same results in the same order on every database (each tier ranks at most 200 candidates, so that a short prefix stays fast on a large site; those of the first tier are the first 200 titles in alphabetical order of their lower-cased bytes). Case-insensitive, diacritic-sensitive. Only public guides; only the site's default language unless \`showAllLanguages\`. Writes are found at once. An empty query (or one with no letters or digits) answers no results.`;

  app.get('/suggest/:query', {
    config: { auth: 'none' },
    schema: {
      tags: TAG, summary: 'Suggest guides and wikis for a partly typed query', description,
      params: Type.Object({ query: Type.String({ maxLength: 200 }) }),
      querystring: SuggestQuery,
      response: { 200: SuggestResponse, ...errorResponses(422) },
    },
  }, async (request, reply) => {
    // Kept as bytes per query while nothing it shows changed; a suggester is asked the same
    // prefixes again and again. What it found: the 'search' stamp, or 'search_titles' when
    // the titles alone filled the page (comments and bodies do not change it then); wikis
    // follow both, guide records 'guides'. Suggestions are the same for everyone.
    const q = request.query;
    const key = JSON.stringify([request.params.query, q.doctypes ?? null, q.showAllLanguages ?? false]);
    return sendCachedAnswerUnder(app, reply, { narrow: ['search_titles', 'guides'], wide: ['search', 'guides'] }, key, async () => {
      const { value, fromTitles, check } = await suggest(request.params.query, q, key);
      return { value, narrow: fromTitles, check };
    });
  });

  app.get('/suggest', {
    config: { auth: 'none' },
    schema: {
      tags: TAG, summary: 'Suggest with an empty query: no results',
      description: 'GET /suggest/ with nothing typed yet answers `{"query": "", "results": []}`.',
      querystring: SuggestQuery,
      response: { 200: SuggestResponse, ...errorResponses(422) },
    },
  }, async (request) => (await suggest('', request.query)).value);

  // GET /search/{query}: the same index and ranking as suggest, a page at a time, with a count.
  app.get('/search/:query', {
    config: { auth: 'none' },
    schema: {
      tags: TAG, summary: 'Search guides and wikis, a page at a time (extension)',
      description: `Extension (the live service and iFixit's API 2.0 have it). The suggester's search (\`GET /suggest/{query}\`: the same full-text index of either database, the same ranking, the same records: wikis as suggest shows them, light guide records with \`summary\`, public guides only), a page at a time: \`offset\` and \`limit\` (default ${SUGGEST_LIMIT}, at most ${SEARCH_MAX_LIMIT}). \`type\` (one doctype) or \`doctypes\` (comma-separated, as suggest takes them) filters by kind. \`totalResults\` counts the documents that matched among the candidates the search ranks (each tier ranks a bounded number: see suggest), and \`moreResults\` says whether a page lies past this one.`,
      params: Type.Object({ query: Type.String({ maxLength: 200 }) }),
      querystring: SearchQuery,
      response: { 200: SearchResponse, ...errorResponses(422) },
    },
  }, async (request) => {
    const q = request.query;
    const text = request.params.query;
    const targets = targetsOf(q.doctypes ?? q.type, q.doctypes !== undefined ? 'doctypes' : 'type');
    const page = { offset: q.offset, limit: q.limit };
    if (searchTokens(text).length === 0) return { query: text, ...page, totalResults: 0, moreResults: false, results: [] };
    const answered: SearchAnswered = { fromTitles: false };
    const hits = await searchDocs(db, text, { targets, langids: q.showAllLanguages ? undefined : [config.languages[0]] }, { ...page, count: true }, answered);
    const { results } = await recordsOf(hits);
    const totalResults = answered.total ?? 0;
    return { query: text, ...page, totalResults, moreResults: page.offset + page.limit < totalResults, results };
  });
}
