// Every external program runs bounded: killed with its whole process group on timeout,
// on too much output, on abort and on shutdown. Real programs (sh, ffprobe), tiny limits.
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { ProgramError, runningPrograms, runProgram, stopAllPrograms } from '../../src/process-runner.js';
import { expectGroupGone, liveMembers } from '../helpers/processes.js';
import { hasFfmpeg } from '../helpers/factories/media.js';
import { dashBehindAtom, hugeTagsWebm, plainMp4 } from '../helpers/factories/hostile-media.js';

/** Starts a program and answers its process group id once it runs. */
async function started(cmd: string, args: string[], limits: Parameters<typeof runProgram>[2]) {
  const before = new Set(runningPrograms());
  const done = runProgram(cmd, args, limits).then(() => null, (e: unknown) => e as ProgramError);
  const pgid = await vi.waitFor(() => {
    const p = runningPrograms().find((x) => !before.has(x));
    if (!p) throw new Error('not started');
    return p;
  });
  return { pgid, done };
}

// A shell that starts two grandchildren: they must die with it.
const FAMILY = ['-c', 'sleep 60 & sleep 60 & wait'];

describe('runProgram', () => {
  it('answers the output of a program that ends in time', async () => {
    expect((await runProgram('sh', ['-c', 'printf hello'], { timeoutMs: 10_000, maxOutputBytes: 100 })).toString()).toBe('hello');
  });

  it('kills the whole process group at the time limit', async () => {
    const { pgid, done } = await started('sh', FAMILY, { timeoutMs: 300, maxOutputBytes: 100 });
    const err = await done;
    expect(err).toBeInstanceOf(ProgramError);
    expect(err!.reason).toBe('timeout');
    await expectGroupGone(pgid);
    expect(runningPrograms()).not.toContain(pgid);
  });

  it('kills a program that prints more than the cap', async () => {
    const { pgid, done } = await started('sh', ['-c', 'yes & sleep 60'], { timeoutMs: 30_000, maxOutputBytes: 10_000 });
    expect((await done)!.reason).toBe('output');
    await expectGroupGone(pgid);
  });

  it('kills the group when the work is cancelled, and on shutdown', async () => {
    const abort = new AbortController();
    const a = await started('sh', FAMILY, { timeoutMs: 30_000, maxOutputBytes: 100, signal: abort.signal });
    abort.abort();
    expect((await a.done)!.reason).toBe('aborted');
    await expectGroupGone(a.pgid);

    const b = await started('sh', FAMILY, { timeoutMs: 30_000, maxOutputBytes: 100 });
    await stopAllPrograms();
    expect((await b.done)!.reason).toBe('exit');
    await expectGroupGone(b.pgid);
    expect(runningPrograms()).toEqual([]);
  });

  it('reports a failing program with the tail of its error output', async () => {
    const err = await runProgram('sh', ['-c', 'echo broken >&2; exit 3'], { timeoutMs: 10_000, maxOutputBytes: 100 }).catch((e: ProgramError) => e);
    expect(err).toMatchObject({ reason: 'exit' });
    expect((err as Error).message).toContain('broken');
  });
});

describe.skipIf(!hasFfmpeg)('ffprobe on hostile input, left to guess (what the video pipeline no longer does)', () => {
  it('a live DASH manifest loops ffprobe until the time limit kills it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cp-runner-'));
    writeFileSync(join(dir, 'secret.mp4'), plainMp4());
    writeFileSync(join(dir, 'live.mov'), dashBehindAtom(join(dir, 'secret.mp4'), true));
    const { pgid, done } = await started('ffprobe', ['-v', 'error', '-show_format', join(dir, 'live.mov')], { timeoutMs: 1500, maxOutputBytes: 64 * 1024 });
    expect((await done)!.reason).toBe('timeout');
    await expectGroupGone(pgid);
  });

  it('huge metadata tags are cut off by the output cap instead of filling memory', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cp-runner-'));
    writeFileSync(join(dir, 'tags.webm'), hugeTagsWebm(100_000));
    const err = await runProgram('ffprobe', ['-v', 'error', '-print_format', 'json', '-show_format', join(dir, 'tags.webm')], { timeoutMs: 30_000, maxOutputBytes: 64 * 1024 }).catch((e: ProgramError) => e);
    expect(err).toMatchObject({ reason: 'output' });
  });
});

describe('a server process killed outright (SIGKILL)', () => {
  it('leaves no program burning CPU: the kernel ends it at its CPU-time limit', async () => {
    const runner = new URL('../../src/process-runner.ts', import.meta.url).pathname;
    // A server stand-in that starts a busy program with a 1-second limit and prints its group.
    const script = `import { runProgram, runningPrograms } from ${JSON.stringify(runner)};
      runProgram('sh', ['-c', 'while :; do :; done'], { timeoutMs: 1000, maxOutputBytes: 100 }).catch(() => {});
      console.log(runningPrograms()[0]);
      setInterval(() => {}, 1000);`;
    const server = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const pgid = await new Promise<number>((resolve) => server.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
    expect(pgid).toBeGreaterThan(0);
    server.kill('SIGKILL'); // no exit hook runs: the program is orphaned
    await new Promise((r) => server.once('exit', r));
    await vi.waitFor(() => expect(liveMembers(pgid)).toEqual([]), { timeout: 60_000, interval: 100 });
  }, 70_000);
});
