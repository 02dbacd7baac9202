// The documents' walkthroughs run: every block fenced as ```sh in docs/*.md, a document's
// blocks in order in one bash (`set -euo pipefail`), from the repository's folder, against
// a freshly started demo server whose generated password is in its data folder, as a
// newcomer would run them after `npm start`. Blocks fenced otherwise are for reading.
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT, startServer, type ServerProcess } from '../../bench/lib/server-process.js';
import { scratchDatabases } from '../helpers/scratch-databases.js';

/** The ```sh blocks of a Markdown text, in order. */
export function shellBlocks(markdown: string): string[] {
  const blocks: string[] = [];
  let current: string[] | null = null;
  for (const line of markdown.split('\n')) {
    if (current) {
      if (line.startsWith('```')) { blocks.push(current.join('\n')); current = null; } else current.push(line);
    } else if (line.trim() === '```sh') current = [];
  }
  return blocks;
}

const docsDir = join(REPO_ROOT, 'docs');
const documents = readdirSync(docsDir).filter((f) => f.endsWith('.md')).filter((f) => shellBlocks(readFileSync(join(docsDir, f), 'utf8')).length > 0);

describe('the walkthroughs in docs/ run top to bottom', () => {
  const scratch = scratchDatabases('docs');
  let server: ServerProcess;
  let dataDir: string;
  beforeAll(async () => {
    dataDir = join(scratch.dir, 'data');
    mkdirSync(dataDir, { recursive: true });
    // ADMIN_PASSWORD unset, as on a newcomer's machine: the server writes the one it generates.
    server = await startServer({ databaseUrl: await scratch.newDatabase('docs'), dataDir, env: { ADMIN_PASSWORD: '' }, readyTimeoutMs: 120_000 });
  }, 150_000);
  afterAll(async () => { await server?.stop(); });

  it('finds the walkthroughs', () => {
    expect(documents).toContain('walkthrough.md');
  });

  for (const doc of documents) {
    it(doc, async () => {
      const script = ['set -euo pipefail', ...shellBlocks(readFileSync(join(docsDir, doc), 'utf8'))].join('\n');
      const result = await new Promise<{ code: number | null; out: string }>((done) => {
        const child = spawn('bash', ['-c', script], {
          cwd: REPO_ROOT,
          env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', API: `${server.url}/api/2.0`, DATA_DIR: dataDir },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        child.stdout.on('data', (d) => { out += d; });
        child.stderr.on('data', (d) => { out += d; });
        child.on('exit', (code) => done({ code, out }));
      });
      expect(result.code, `${doc} stopped:\n${result.out.slice(-4000)}`).toBe(0);
    }, 240_000);
  }
});
