// What a test checks of processes it started: their children, and after a program was
// killed, that nothing of its process group runs.
import { readdirSync, readFileSync } from 'node:fs';
import { expect, vi } from 'vitest';

/**
 * The live (not zombie) processes whose parent (`ppid`) or process group (`pgrp`) is `id`,
 * read from /proc. A killed process whose parent has not reaped it yet is a zombie: it
 * runs nothing and holds nothing.
 */
function liveProcesses(by: 'ppid' | 'pgrp', id: number): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'latin1');
    } catch {
      continue; // ended meanwhile
    }
    // "pid (comm) state ppid pgrp ...": comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (fields[0] !== 'Z' && Number(fields[by === 'ppid' ? 1 : 2]) === id) out.push(Number(name));
  }
  return out;
}

/** The live processes of a process group. */
export const liveMembers = (pgid: number) => liveProcesses('pgrp', pgid);

/** The live processes whose parent is `pid`. */
export const childrenOf = (pid: number) => liveProcesses('ppid', pid);

export const groupAlive = (pgid: number) => liveMembers(pgid).length > 0;

/** Waits (briefly: a killed process takes milliseconds to go) until nothing of the group runs. */
export async function expectGroupGone(pgid: number) {
  await vi.waitFor(() => expect(liveMembers(pgid)).toEqual([]), { timeout: 3000, interval: 20 });
}
