// The media issue's end-to-end case over a real socket: a JPEG posted with curl (as the
// docs/walkthrough.md shows) appears in a new guide step, and every size variant URL of it serves a
// JPEG of the stated dimensions. Without curl on the machine the test says so and skips.
import { execFile, spawnSync } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { makeAuthor, type TestUser } from '../../helpers/factories.js';
import { makeGuide, line } from '../../helpers/factories/guides.js';
import { expectedSize, solid, VARIANTS } from '../../helpers/factories/media.js';

const hasCurl = spawnSync('curl', ['--version'], { stdio: 'ignore' }).status === 0;

describe.skipIf(!hasCurl)('a JPEG posted with curl, in a guide step', () => {
  let t: TestApp;
  let author: TestUser;
  let origin: string;
  let dir: string;
  beforeAll(async () => {
    t = await buildTestApp();
    author = await makeAuthor(t);
    origin = await t.app.listen({ host: '127.0.0.1', port: 0 });
    dir = mkdtempSync(join(tmpdir(), 'cp-e2e-'));
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t.close();
  });

  it('uploads with curl, attaches to a new step, and every variant URL serves a JPEG of its size', async () => {
    const file = join(dir, 'pump.jpg');
    writeFileSync(file, await solid(1200, 900, { r: 20, g: 120, b: 200 }, 'jpeg'));
    // Asynchronously: the server answering curl runs in this very process.
    const curl = await promisify(execFile)('curl', ['-sS', '--fail-with-body', '-X', 'POST', '-H', `Authorization: api ${author.token}`,
      '-H', 'Content-Type: application/octet-stream', '--data-binary', `@${file}`, `${origin}/api/2.0/user/media/uploads?file=pump.jpg`]);
    const item = JSON.parse(curl.stdout);
    expect(item).toMatchObject({ type: 'GuideImage', mime: 'image/jpeg' });

    const guide = await makeGuide(t, author);
    const res = await t.post(`/guides/${guide.guideid}/steps?revisionid=${guide.revisionid}`, {
      token: author.token, body: { title: 'Fit the pump', lines: [line('Seat the pump on its bracket')], media: { type: 'image', data: [item.id] } },
    });
    expect(res.statusCode, res.body).toBe(201);
    const step = res.json().steps.at(-1);
    expect(step.media.type).toBe('image');
    const image = step.media.data[0];
    expect(image.id).toBe(item.id);

    for (const variant of VARIANTS) {
      const url = new URL(image[variant]);
      const served = await fetch(`${origin}${url.pathname}${url.search}`);
      expect(served.status, variant).toBe(200);
      expect(served.headers.get('content-type'), variant).toBe('image/jpeg');
      const meta = await sharp(Buffer.from(await served.arrayBuffer())).metadata();
      expect(meta.format, variant).toBe('jpeg');
      expect([meta.width, meta.height], variant).toEqual(expectedSize(variant, 1200, 900));
    }
  });
});

describe.skipIf(hasCurl)('a JPEG posted with curl, in a guide step', () => {
  it('skipped: curl is not installed on this machine', () => {
    console.log('[media] curl is not installed: the curl end-to-end test was skipped');
  });
});
