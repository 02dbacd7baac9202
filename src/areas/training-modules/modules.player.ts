// The player: a page of this server that runs scorm-again (from the project's own
// dependencies) and shows the package's launch file in a same-origin frame, so that the
// content finds the runtime by walking window.parent (window.API for 1.2, window.API_1484_11
// for 2004). The page and the package files are addressed by the launch's commit token
// (scoped to one learner, one module version and one attempt; stored hashed): the page
// never holds the learner's API token, and the content, which can read the page, can only
// commit to that attempt. Both are served with a restrictive Content-Security-Policy.

import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { extname } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { Config } from '../../config.js';
import { hashToken } from '../../http/passwords.js';
import { launchFilePath } from './modules.manifest.js';
import { findAttemptByToken, findImport, type AttemptRow, type ImportRow } from './modules.queries.js';
import { absolute, commitPath, contentPath, playerPath } from './modules.records.js';
import type { PlayerDataRecord } from './modules.schemas.js';
import { importPrefix, safeEntryName } from './modules.zip.js';
import { blobStoreFor, checkKey } from '../../storage/blob-store.js';

/** The player data of a launch. */
export function playerData(config: Config, imp: ImportRow, launch: { attempt: AttemptRow; token: string }): PlayerDataRecord {
  const { attempt, token } = launch;
  let state: Record<string, unknown> | null = null;
  if (attempt.state) {
    try {
      state = JSON.parse(attempt.state) as Record<string, unknown>;
    } catch {
      state = null;
    }
  }
  return {
    external_training_moduleid: imp.external_training_moduleid,
    importid: imp.importid,
    scorm_version: imp.scorm_version ?? '1.2',
    title: imp.title ?? 'Untitled module',
    preview: attempt.preview === 1,
    attempt: attempt.attempt,
    player_url: absolute(config, playerPath(token)),
    launch_url: absolute(config, launchUrl(token, imp.launch_path ?? '')),
    commit_url: absolute(config, commitPath(token)),
    token_expires: Number(attempt.token_expires),
    state,
    completed: attempt.completed === 1,
  };
}

function launchUrl(token: string, launch: string): string {
  const file = launchFilePath(launch) ?? '';
  const cut = [launch.indexOf('?'), launch.indexOf('#')].filter((i) => i >= 0);
  return contentPath(token, file) + (cut.length ? launch.slice(Math.min(...cut)) : '');
}

const TOKEN = /^[\w-]{43}$/;
const require = createRequire(import.meta.url);
const RUNTIME_FILE = require.resolve('scorm-again').replace(/scorm-again\.js$/, 'scorm-again.min.js');

/** The player page's policy: scripts and frames from this server only, no inline script. */
export const PLAYER_CSP = "default-src 'none'; script-src 'self'; connect-src 'self'; frame-src 'self'; img-src 'self'; style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'self'";
/**
 * The package files' policy: authoring tools write inline scripts and styles, so those are
 * allowed, but nothing from another host and no connection but to this server; framed only
 * by this server's pages.
 */
export const CONTENT_CSP = "default-src 'self' 'unsafe-inline' 'unsafe-eval' data: blob:; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'self'";

const PLAYER_JS = `(function () {
  'use strict';
  var cfg = JSON.parse(document.getElementById('player-config').textContent);
  var settings = { lmsCommitUrl: cfg.commit_url, autocommit: true, autocommitSeconds: 30, logLevel: 4, selfReportSessionTime: true };
  var api;
  if (cfg.scorm_version === '2004') {
    api = new window.Scorm2004API(settings);
    window.API_1484_11 = api;
  } else {
    api = new window.Scorm12API(settings);
    window.API = api;
  }
  if (cfg.state) {
    try { api.loadFromJSON(cfg.state); } catch (e) { /* a state the runtime refuses: start afresh */ }
  }
  var status = document.getElementById('status');
  api.on(cfg.scorm_version === '2004' ? 'Terminate' : 'LMSFinish', function () { status.textContent = 'Finished.'; document.body.setAttribute('data-finished', '1'); });
  document.getElementById('content').src = cfg.launch_url;
})();
`;

const PLAYER_CSS = 'html,body{margin:0;height:100%;font-family:sans-serif}#status{position:absolute;right:8px;top:4px;font-size:12px;color:#555}iframe{border:0;width:100%;height:100%;display:block}';

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.htm': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.xml': 'application/xml', '.xsd': 'application/xml', '.txt': 'text/plain; charset=utf-8',
  '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.svg': 'image/svg+xml', '.webp': 'image/webp', '.ico': 'image/x-icon',
  '.mp3': 'audio/mpeg', '.wav': 'audio/wav', '.ogg': 'audio/ogg', '.mp4': 'video/mp4', '.webm': 'video/webm', '.woff': 'font/woff', '.woff2': 'font/woff2',
  '.ttf': 'font/ttf', '.otf': 'font/otf', '.pdf': 'application/pdf', '.swf': 'application/octet-stream',
};

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function notFoundPage(reply: FastifyReply) {
  return reply.status(404).header('content-type', 'text/html; charset=utf-8').header('content-security-policy', PLAYER_CSP).header('cache-control', 'no-store')
    .send('<!doctype html><meta charset="utf-8"><title>Not found</title><p>This player link is unknown or expired. Open the module again.</p>');
}

/** The player's pages and files, outside /api/2.0. */
export async function playerRoutes(app: FastifyInstance) {
  const { db, config, clock } = app;
  const store = blobStoreFor(config, 'modules');
  let runtime: Buffer | null = null;

  async function launchOf(token: string): Promise<{ attempt: AttemptRow; imp: ImportRow } | null> {
    if (!TOKEN.test(token)) return null;
    const attempt = await findAttemptByToken(db, hashToken(token));
    if (!attempt || Number(attempt.token_expires) <= clock.now()) return null;
    const imp = await findImport(db, attempt.importid);
    if (!imp || imp.status !== 'COMPLETE') return null;
    return { attempt, imp };
  }

  app.get('/training-modules/runtime/scorm-again.min.js', { schema: { hide: true } }, async (_request, reply) => {
    runtime ??= await readFile(RUNTIME_FILE);
    return reply.header('content-type', 'text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(runtime);
  });
  app.get('/training-modules/runtime/player.js', { schema: { hide: true } }, async (_request, reply) =>
    reply.header('content-type', 'text/javascript; charset=utf-8').header('cache-control', 'public, max-age=3600').send(PLAYER_JS));
  app.get('/training-modules/runtime/player.css', { schema: { hide: true } }, async (_request, reply) =>
    reply.header('content-type', 'text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(PLAYER_CSS));

  app.get<{ Params: { token: string } }>('/training-modules/play/:token/', { schema: { hide: true } }, async (request, reply) => {
    const launch = await launchOf(request.params.token);
    if (!launch) return notFoundPage(reply);
    const data = playerData(config, launch.imp, { attempt: launch.attempt, token: request.params.token });
    const cfg = JSON.stringify({ scorm_version: data.scorm_version, commit_url: commitPath(request.params.token), launch_url: launchUrl(request.params.token, launch.imp.launch_path ?? ''), state: data.state })
      .replace(/</g, '\\u003c');
    const html = '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="referrer" content="no-referrer">' +
      `<title>${escapeHtml(data.title)}</title><link rel="stylesheet" href="/training-modules/runtime/player.css"></head><body>` +
      `<div id="status"></div><iframe id="content" title="${escapeHtml(data.title)}"></iframe>` +
      `<script type="application/json" id="player-config">${cfg}</script>` +
      '<script src="/training-modules/runtime/scorm-again.min.js"></script><script src="/training-modules/runtime/player.js"></script></body></html>';
    return reply.header('content-type', 'text/html; charset=utf-8').header('content-security-policy', PLAYER_CSP).header('cache-control', 'no-store')
      .send(html);
  });

  app.get<{ Params: { token: string; '*': string } }>('/training-modules/play/:token/content/*', { schema: { hide: true } }, async (request, reply) => {
    const launch = await launchOf(request.params.token);
    if (!launch) return notFoundPage(reply);
    let name: string;
    try {
      name = decodeURIComponent(request.params['*'] ?? '');
    } catch {
      return notFoundPage(reply);
    }
    const safe = safeEntryName(name);
    if (!safe || safe.endsWith('/')) return notFoundPage(reply);
    // Streamed from storage through the app whatever the backend (never a redirect into a
    // bucket): the package's pages must stay on this origin, under CONTENT_CSP.
    let key: string;
    try {
      key = `${importPrefix(launch.imp.importid)}/${safe}`;
      checkKey(key);
    } catch {
      return notFoundPage(reply);
    }
    const size = await store.size(key);
    const body = size === null ? null : await store.get(key);
    if (size === null || !body) return notFoundPage(reply);
    // SAMEORIGIN whatever the type: the player frames the launch file, which may be a PDF or an image.
    return reply.header('content-type', MIME[extname(safe).toLowerCase()] ?? 'application/octet-stream').header('content-length', size)
      .header('content-security-policy', CONTENT_CSP).header('x-frame-options', 'SAMEORIGIN').header('cache-control', 'private, max-age=300')
      .send(body);
  });
}
