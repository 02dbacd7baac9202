// The HTML page each guide's `url` points to: `/Guide/<slug>/<guideid>` (`?lang=` for a
// language other than the default), outside /api/2.0. Public guides only. Titles and
// plain fields are escaped here; introductions, conclusions and lines come from the
// markup renderer, which escapes everything it does not itself write. A strict Content
// Security Policy forbids scripts on the page whatever happens.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { sendLoginPage } from '../../http/login-page.js';
import { escapeHtml } from '../../markup/index.js';
import { toBool } from '../../db/helpers.js';
import { buildFullRecord } from './guides.records.js';
import { findGuideRow, loadCurrentSource, loadRevisionSource } from './guides.queries.js';
import { guideAccess } from './guides.access.js';
import { readerViewDiffers, revisionShown } from '../shared/guide-reader.js';
import { privateAnswer } from '../../http/conditional.js';
import { resolveToken, tokenFrom, type AuthUser } from '../../http/auth.js';
import type { FullGuide, Step } from './guides.schemas.js';
import { flagSvg, GUIDE_FLAGS } from './guides.flags.js';

const CSP = "default-src 'none'; img-src * data:; media-src *; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'";

const STYLE = `
body{font:16px/1.5 system-ui,sans-serif;max-width:52rem;margin:2rem auto;padding:0 1rem;color:#1f2328}
h1{font-size:2rem;margin-bottom:.25rem}.meta{color:#59636e}.flags span{display:inline-block;background:#fff8c5;border-radius:4px;padding:0 .4rem;margin-right:.3rem}
img{max-width:100%;height:auto}.guide-image{border-radius:6px}.step{border-top:1px solid #d1d9e0;padding-top:1rem;margin-top:1.5rem}
.step-images{display:flex;gap:.5rem;flex-wrap:wrap}.step-images img{width:32%;min-width:12rem}
ul.lines{padding-left:1.2rem}ul.lines li{list-style:none;position:relative}ul.lines li::before{content:"";position:absolute;left:-1rem;top:.55em;width:.55rem;height:.55rem;border-radius:50%;background:var(--bullet,#000)}
ul.lines li.icon::before{content:attr(data-char);width:auto;height:auto;background:none;font-weight:bold;top:0;color:var(--bullet,#000)}
.items{display:flex;gap:2rem}form.fields ul{padding-left:0;list-style:none}form.fields li{margin:.3rem 0}form.fields abbr{color:#cf222e;text-decoration:none}blockquote{border-left:4px solid #d1d9e0;margin-left:0;padding-left:1rem}pre{background:#f6f8fa;padding:.5rem;overflow:auto}
`;

function linesHtml(step: Step): string {
  // Lines are flat with levels 0 to 3: nest a list per level.
  let html = '<ul class="lines">';
  let depth = 0;
  let open = false;
  for (const line of step.lines) {
    const level = Math.max(0, Math.min(3, line.level));
    if (level > depth) {
      while (depth < level) {
        html += '<ul class="lines">';
        depth++;
      }
    } else {
      if (open) html += '</li>';
      while (depth > level) {
        html += '</ul></li>';
        depth--;
      }
    }
    const style = line.bullet_style;
    const color = style.bullet_color && /^#[0-9a-fA-F]{3,8}$/.test(style.bullet_color) ? style.bullet_color : '#000';
    const icon = style.type === 'icon';
    const char = icon ? escapeHtml(style.char ?? '•') : '';
    html += `<li class="${icon ? 'icon' : 'color'} bullet-${escapeHtml(line.bullet)}" style="--bullet:${color}"${icon ? ` data-char="${char}"` : ''}>${line.text_rendered}`;
    open = true;
  }
  if (open) html += '</li>';
  while (depth > 0) {
    html += '</ul></li>';
    depth--;
  }
  return html + '</ul>';
}

function mediaHtml(step: Step): string {
  if (step.media.type === 'video' && !Array.isArray(step.media.data)) {
    const v = step.media.data as { encodings?: Array<{ url?: string; mime?: string }> };
    const sources = (v.encodings ?? []).filter((e) => typeof e.url === 'string' && /^https?:\/\//.test(e.url))
      .map((e) => `<source src="${escapeHtml(e.url!)}"${e.mime ? ` type="${escapeHtml(e.mime)}"` : ''}>`).join('');
    return sources ? `<video controls preload="metadata">${sources}</video>` : '';
  }
  const images = Array.isArray(step.media.data) ? step.media.data : [];
  if (!images.length) return '';
  return `<div class="step-images">${images.map((i) => `<img src="${escapeHtml(i.standard ?? i.original ?? '')}" alt="">`).join('')}</div>`;
}

/**
 * The step's form fields as a form a performer would fill, disabled: the page shows what
 * the work log records (it is filled through the work log API; `form-action 'none'`).
 */
function fieldsHtml(step: Step): string {
  if (!step.fields.length) return '';
  const control = (f: Step['fields'][number], id: string) => {
    if (f.type === 'checkbox') return `<input type="checkbox" id="${id}" disabled>`;
    if (f.type === 'number') return `<input type="number" id="${id}" disabled>`;
    if (f.type === 'choice') return `<select id="${id}" disabled>${f.options.map((o) => `<option>${escapeHtml(o)}</option>`).join('')}</select>`;
    return `<input type="text" id="${id}" disabled>`;
  };
  const rows = step.fields.map((f) => {
    const id = `f${f.field_revisionid}`;
    return `<li class="field field-${f.type}" data-field-revisionid="${f.field_revisionid}"><label for="${id}">${escapeHtml(f.label)}${f.required ? ' <abbr title="required">*</abbr>' : ''}</label> ${control(f, id)}</li>`;
  }).join('');
  return `<form class="fields"><ul>${rows}</ul></form>`;
}

export function guidePageHtml(g: FullGuide): string {
  const items = (title: string, list: FullGuide['parts']) => list.length
    ? `<section><h2>${title}</h2><ul>${list.map((i) => `<li>${i.quantity > 1 ? `${i.quantity} × ` : ''}${escapeHtml(i.title)}${i.notes ? ` <small>${escapeHtml(i.notes)}</small>` : ''}</li>`).join('')}</ul></section>`
    : '';
  const flags = g.flags.flatMap((f) => GUIDE_FLAGS.get(f) ?? []).map((f) => `<span title="${escapeHtml(f.text)}">${escapeHtml(f.title)}</span>`).join('');
  const meta = [g.difficulty, g.time_required, `by ${g.username}`].filter(Boolean).map(escapeHtml).join(' · ');
  const prereqs = g.prerequisites.length
    ? `<section><h2>Before you start</h2><ul>${g.prerequisites.map((p) => `<li><a href="${escapeHtml(p.url)}">${escapeHtml(p.title)}</a></li>`).join('')}</ul></section>`
    : '';
  const steps = g.steps.map((s, i) => `<section class="step" id="s${s.stepid}"><h2>Step ${i + 1}${s.title ? ` — ${escapeHtml(s.title)}` : ''}</h2>${mediaHtml(s)}${linesHtml(s)}${fieldsHtml(s)}</section>`).join('');
  return `<!doctype html>
<html lang="${escapeHtml(g.locale)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(g.title)}</title><style>${STYLE}</style></head>
<body><article class="guide" data-guideid="${g.guideid}">
<h1>${escapeHtml(g.title)}</h1><p class="meta">${meta}</p>${flags ? `<p class="flags">${flags}</p>` : ''}
${g.image?.standard ? `<img class="guide-image" src="${escapeHtml(g.image.standard)}" alt="">` : ''}
<section class="introduction">${g.introduction_rendered}</section>
${prereqs}<div class="items">${items('Parts', g.parts)}${items('Tools', g.tools)}</div>
${steps}
${g.conclusion_raw.trim() ? `<section class="conclusion"><h2>Conclusion</h2>${g.conclusion_rendered}</section>` : ''}
${g.tags.length ? `<p class="meta">Tags: ${g.tags.map(escapeHtml).join(', ')}</p>` : ''}
</article></body></html>`;
}

function notFoundPage(reply: FastifyReply) {
  return reply.status(404).header('content-type', 'text/html; charset=utf-8').header('content-security-policy', CSP)
    .send('<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Not found</title></head><body><h1>Guide not found</h1><p>This guide does not exist or is not public.</p></body></html>');
}

export async function guidePages(app: FastifyInstance) {
  const { db, config } = app;

  /**
   * The page's caller: the session cookie's (auth.ts sets request.user on pages), else an API
   * token sent with it (`Authorization: api <token>`), else anonymous (a bad token reads as
   * anonymous: the page is public).
   */
  const pageCaller = async (request: FastifyRequest): Promise<AuthUser | null> => {
    if (request.user) return request.user;
    const token = tokenFrom(request.headers.authorization);
    return token ? resolveToken(db, token, app.clock.now()) : null;
  };

  const page = async (guideidText: string, lang: unknown, request: FastifyRequest, reply: FastifyReply) => {
    const user = await pageCaller(request);
    // A private site's pages are for those logged in: the others get the login page.
    if (config.privateSite && !user) return sendLoginPage(reply, 401, { next: request.url });
    const guideid = /^\d{1,10}$/.test(guideidText) ? Number(guideidText) : NaN;
    const langid = typeof lang === 'string' && config.languages.includes(lang) ? lang : undefined;
    const row = Number.isSafeInteger(guideid) && guideid > 0 ? await findGuideRow(db, config, guideid, langid) : undefined;
    if (!row || !toBool(row.public)) return notFoundPage(reply);
    // The reader rule (areas/shared/guide-reader.ts): those who may edit the guide see its
    // current revision, everyone else what readers see (none before the first approval).
    const mayEdit = user !== null && (await guideAccess(db, user, row)).edit;
    const shown = revisionShown(row, mayEdit);
    if (shown === null) return notFoundPage(reply);
    if (readerViewDiffers(row) || config.privateSite) privateAnswer(reply);
    if (config.privateSite) reply.header('cache-control', 'private, no-cache');
    const source = shown === row.revisionid ? await loadCurrentSource(db, row) : await loadRevisionSource(db, row, shown);
    if (!source) return notFoundPage(reply);
    const record = await buildFullRecord(db, config, source, user);
    return reply.header('content-type', 'text/html; charset=utf-8').header('content-security-policy', CSP)
      .header('link', `<${config.publicUrl}/api/2.0/guides/${row.guideid}?langid=${row.langid}>; rel="alternate"; type="application/json"`)
      .send(guidePageHtml(record));
  };

  app.get('/Guide/:slug/:guideid', { schema: { hide: true }, config: { session: true } }, async (request, reply) => {
    const { guideid } = request.params as { slug: string; guideid: string };
    return page(guideid, (request.query as Record<string, unknown>).lang, request, reply);
  });
  // A link without the title in it still works.
  app.get('/Guide/:guideid', { schema: { hide: true }, config: { session: true } }, async (request, reply) => {
    const { guideid } = request.params as { guideid: string };
    return page(guideid, (request.query as Record<string, unknown>).lang, request, reply);
  });

  app.get('/static/flags/:file', { schema: { hide: true } }, async (request, reply) => {
    const { file } = request.params as { file: string };
    const svg = /^([A-Z_]+)\.svg$/.test(file) ? flagSvg(file.slice(0, -4)) : null;
    if (!svg) return reply.status(404).header('content-type', 'text/plain; charset=utf-8').send('Not found');
    return reply.header('content-type', 'image/svg+xml').header('cache-control', 'public, max-age=86400').header('content-security-policy', CSP).send(svg);
  });
}
