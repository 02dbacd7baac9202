// The PDF worker's file is found in the build as well as in the sources (the other tests
// run the sources): `npm start` runs `node dist/start.js` after tsc, where the renderer
// starts dist/pdf/pdf.worker.js. The build goes to a folder of its own under
// dist/ (ignored by git; emitted as `npm run build` emits it, without its type check, which
// `npm run typecheck` does), removed after; the renderer is loaded by plain node.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

describe('the built PDF renderer', () => {
  it('tsc\'s output renders a PDF in its worker under plain node', () => {
    const out = join('dist', `.pdf-worker-check-${process.pid}`);
    try {
      execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json', '--outDir', out, '--sourceMap', 'false', '--noCheck'], { stdio: 'pipe' });
      const script = `
        const { PdfRenderer } = await import('./pdf/pdf.renderer.js');
        const r = new PdfRenderer({ pdfWarmStart: false, pdfQueueSize: 1, pdfTimeoutMs: 60000, pdfKeptMb: 1 });
        const pdf = await r.workLogPdf({ entryid: 1, date: 0, title: 'Built', lines: [], timings: [], moreTimings: 0, steps: [{ title: 'Step', values: [{ label: 'Remarks', value: 'x'.repeat(10000), by: 'me', modified: 0 }] }], audit: [], moreAudit: 0 });
        await r.close();
        process.stdout.write(pdf.subarray(0, 5).toString());`;
      writeFileSync(join(out, 'check.mjs'), script);
      const printed = execFileSync(process.execPath, [join(out, 'check.mjs')], { encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
      expect(printed).toBe('%PDF-');
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 240_000);
});
