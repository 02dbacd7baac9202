// Video jobs' temporary folders (DATA_DIR/tmp/video, videos.ts) are swept per node: a start
// removes its own host's leftovers of processes that are gone, never a folder of a process
// that still runs (another server process sharing the DATA_DIR) nor a recent one of another
// host (another node on a shared DATA_DIR), and a job's folder names its owner.
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/config.js';
import { sweepVideoTemp } from '../../../src/areas/media/videos.js';

describe('sweeping video temporary files at a start', () => {
  it('removes only this node\'s leftovers', async () => {
    const config = { ...loadConfig({}), dataDir: mkdtempSync(join(tmpdir(), 'cp-video-temp-')) };
    const root = join(config.dataDir, 'tmp', 'video');
    const host = hostname().replace(/[^A-Za-z0-9.]/g, '_');
    // A process of this host that still runs (another server process), and one that is gone.
    const live = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
    const gone = spawn(process.execPath, ['-e', '0'], { stdio: 'ignore' });
    await new Promise((r) => gone.once('exit', r));
    try {
      const folder = (name: string, ageMs = 0) => {
        const path = join(root, name);
        mkdirSync(path, { recursive: true });
        writeFileSync(join(path, 'input.part'), 'x');
        if (ageMs) utimesSync(path, new Date(Date.now() - ageMs), new Date(Date.now() - ageMs));
        return path;
      };
      const running = folder(`job-${host}-${live.pid}-abc123`);
      const dead = folder(`job-${host}-${gone.pid}-def456`);
      const mine = folder(`job-${host}-${process.pid}-ghi789`);
      const otherNode = folder('job-other_node.example-4242-jkl012');
      const otherNodeOld = folder('job-other_node.example-4243-mno345', 30 * 24 * 3600_000);
      const olderVersion = folder('job-pqr678');
      sweepVideoTemp(config);
      expect([running, dead, mine, otherNode, otherNodeOld, olderVersion].map(existsSync)).toEqual([true, false, false, true, false, false]);
    } finally {
      live.kill('SIGKILL');
    }
  });
});
