// `npm run client:generate`: writes clients/typescript/src/schema.d.ts from the API document
// (after adding or changing routes; CI fails while the committed types differ from it).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildDocument, CLIENT_TYPES, writeClientTypes } from './lib/openapi.js';

const dir = mkdtempSync(join(tmpdir(), 'cp-openapi-'));
try {
  const docFile = join(dir, 'openapi.json');
  writeFileSync(docFile, JSON.stringify(await buildDocument(), null, 2));
  writeClientTypes(docFile, CLIENT_TYPES);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
