// The generated API document and the typed client's types made from it, for
// scripts/check-openapi.ts (CI) and scripts/generate-client.ts (`npm run client:generate`).
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { buildApp } from '../../src/app.js';

export const ROOT = join(import.meta.dirname, '..', '..');
export const CLIENT_DIR = join(ROOT, 'clients', 'typescript');
/** The client's generated types, committed. */
export const CLIENT_TYPES = join(CLIENT_DIR, 'src', 'schema.d.ts');
const OPENAPI_TYPESCRIPT = join(CLIENT_DIR, 'node_modules', 'openapi-typescript', 'bin', 'cli.js');

/** The document as `npm run -s openapi` prints it: built on an empty in-memory database, the default PUBLIC_URL. */
export async function buildDocument(): Promise<unknown> {
  const config = { ...loadConfig({}), databaseUrl: 'sqlite::memory:', jobPollMs: 0 };
  const handle = openDatabase(config.databaseUrl);
  const app = await buildApp({ config, handle, logger: false });
  try {
    await app.ready();
    return app.swagger();
  } finally {
    await app.close();
    await handle.destroy();
  }
}

/** Runs a tool, its output passed through; false when it fails. */
export function run(command: string, args: string[], env: Record<string, string> = {}): boolean {
  const r = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status === 0;
}

/** Writes the client's types for the document in `docFile` to `outFile` with openapi-typescript (the client's own, TypeScript 5). */
export function writeClientTypes(docFile: string, outFile: string): void {
  if (!existsSync(OPENAPI_TYPESCRIPT)) throw new Error('openapi-typescript is not installed: run `npm ci --prefix clients/typescript` first.');
  // The client's own (empty) Redocly configuration: the document is linted by check-openapi, not here.
  if (!run(process.execPath, [OPENAPI_TYPESCRIPT, docFile, '--output', outFile, '--redocly', join(CLIENT_DIR, 'redocly.yaml')])) throw new Error('openapi-typescript failed');
}

export const readText = (file: string) => readFileSync(file, 'utf8');
