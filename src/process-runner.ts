// Every external program (ffprobe, ffmpeg) runs through runProgram: in a process group
// of its own, with a wall-clock time limit and a cap on what it prints, and killed with
// its whole group on timeout, on abort (the item was deleted, the server shuts down) and
// when this process exits. Nothing it starts outlives the work that needed it; should this
// process die without a chance to kill it (SIGKILL, out of memory), a CPU-time limit that
// the kernel enforces ends the program anyway.
import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';

export interface ProgramLimits {
  /** Wall-clock time limit in milliseconds (a program's run is real time, not the app's clock). */
  timeoutMs: number;
  /** Most bytes of standard output collected; more kills the program. */
  maxOutputBytes: number;
  /** Aborting kills the program. */
  signal?: AbortSignal;
  /** Standard output as it comes, instead of collected (a progress stream): nothing is kept, so no output bound applies. */
  onStdout?: (chunk: Buffer) => void;
}

export type ProgramFailure = 'timeout' | 'output' | 'aborted' | 'exit' | 'spawn';

export class ProgramError extends Error {
  constructor(readonly reason: ProgramFailure, message: string) {
    super(message);
    this.name = 'ProgramError';
  }
}

/** Programs running now, by process id (which is also their process group's id). */
const live = new Map<number, { child: ChildProcess; closed: Promise<void> }>();

function killGroup(pid: number) {
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // ESRCH: the group is already gone.
  }
}

/** CPU seconds a program may use: its wall-clock limit on every core, plus one. */
const cpuSeconds = (timeoutMs: number) => Math.ceil(timeoutMs / 1000) * availableParallelism() + 1;

let exitHookInstalled = false;
function installExitHook() {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Last resort (a crash, process.exit): the groups die with us. Kills are synchronous.
  process.on('exit', () => {
    for (const pid of live.keys()) killGroup(pid);
  });
}

/** Runs a program; answers its standard output (at most maxOutputBytes). */
export function runProgram(cmd: string, args: string[], limits: ProgramLimits): Promise<Buffer> {
  installExitHook();
  return new Promise((resolve, reject) => {
    if (limits.signal?.aborted) return reject(new ProgramError('aborted', `${cmd} was not started: the work was cancelled`));
    // detached: the program leads a new process group, so that killing -pid also kills
    // whatever it started (an ffmpeg filter helper, a shell's children).
    // `ulimit -t` (RLIMIT_CPU) is inherited and enforced by the kernel, whoever survives whom.
    const child = spawn('/bin/sh', ['-c', 'ulimit -t "$0" && exec "$@"', String(cpuSeconds(limits.timeoutMs)), cmd, ...args], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const chunks: Buffer[] = [];
    let outBytes = 0;
    let errTail = '';
    let failure: ProgramError | null = null;
    let onClosed: () => void = () => {};
    const closed = new Promise<void>((r) => { onClosed = r; });

    const stop = (f: ProgramError) => {
      if (failure) return;
      failure = f;
      if (child.pid) killGroup(child.pid);
    };
    const timer = setTimeout(() => stop(new ProgramError('timeout', `${cmd} took longer than ${limits.timeoutMs} ms and was stopped`)), limits.timeoutMs);
    const onAbort = () => stop(new ProgramError('aborted', `${cmd} was stopped: the work was cancelled`));
    limits.signal?.addEventListener('abort', onAbort, { once: true });

    child.stdout!.on('data', (d: Buffer) => {
      if (limits.onStdout) return limits.onStdout(d);
      outBytes += d.length;
      if (outBytes > limits.maxOutputBytes) stop(new ProgramError('output', `${cmd} printed more than ${limits.maxOutputBytes} bytes and was stopped`));
      else chunks.push(d);
    });
    child.stderr!.setEncoding('utf8').on('data', (d: string) => { errTail = (errTail + d).slice(-4000); });

    const finish = () => {
      clearTimeout(timer);
      limits.signal?.removeEventListener('abort', onAbort);
      if (child.pid) live.delete(child.pid);
      onClosed();
    };
    child.on('error', (e) => {
      finish();
      reject(new ProgramError('spawn', `${cmd} could not be started: ${e.message}`));
    });
    child.on('close', (code) => {
      // The leader is gone; anything left in its group goes with it.
      if (child.pid) killGroup(child.pid);
      finish();
      if (failure) reject(failure);
      else if (code === 0) resolve(Buffer.concat(chunks));
      else reject(new ProgramError('exit', `${cmd} exited with ${code}: ${errTail.trim().split('\n').slice(-3).join(' | ')}`));
    });
    if (child.pid) live.set(child.pid, { child, closed });
  });
}

/** The process (group) ids of the programs running now. */
export function runningPrograms(): number[] {
  return [...live.keys()];
}

/** Kills every running program's group and waits until each has ended (server shutdown). */
export async function stopAllPrograms(): Promise<void> {
  const all = [...live.entries()];
  for (const [pid] of all) killGroup(pid);
  await Promise.all(all.map(([, p]) => p.closed));
}
