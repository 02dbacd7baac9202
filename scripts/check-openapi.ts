// `npm run -s openapi:check` (CI): the generated API document is valid OpenAPI
// (swagger-parser), passes `redocly lint` with the recommended rules (redocly.yaml silences
// only warnings, each with its reason), and the typed client's committed types
// (clients/typescript/src/schema.d.ts) are the ones it generates. Runs offline.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { buildDocument, CLIENT_TYPES, readText, ROOT, run, writeClientTypes } from './lib/openapi.js';

const failures: string[] = [];
const dir = mkdtempSync(join(tmpdir(), 'cp-openapi-'));
try {
  const docFile = join(dir, 'openapi.json');
  writeFileSync(docFile, JSON.stringify(await buildDocument(), null, 2));

  try {
    await SwaggerParser.validate(docFile);
    console.log('swagger-parser: the document is valid');
  } catch (err) {
    failures.push(`swagger-parser: ${(err as Error).message}`);
  }

  const redocly = join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');
  const lintEnv = { REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  if (!run(process.execPath, [redocly, 'lint', docFile, '--config', join(ROOT, 'redocly.yaml'), '--format', 'summary'], lintEnv)) failures.push('redocly lint reported errors (above)');

  const generated = join(dir, 'schema.d.ts');
  writeClientTypes(docFile, generated);
  if (readText(generated) !== readText(CLIENT_TYPES)) {
    failures.push('clients/typescript/src/schema.d.ts differs from the document: run `npm run client:generate` and commit it');
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
if (failures.length) {
  for (const f of failures) console.error(`openapi:check: ${f}`);
  process.exit(1);
}
console.log('openapi:check: passed');
