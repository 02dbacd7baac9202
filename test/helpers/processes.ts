// What a test checks after a program was killed: that nothing of its process group runs.
import { readdirSync, readFileSync } from 'node:fs';
import { expect, vi } from 'vitest';

/**
 * The live (not zombie) processes of a process group, read from /proc. A killed process
 * whose parent has not reaped it yet is a zombie: it runs nothing and holds nothing.
 */
export function liveMembers(pgid: number): number[] {
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
    if (fields[0] !== 'Z' && Number(fields[2]) === pgid) out.push(Number(name));
  }
  return out;
}

export const groupAlive = (pgid: number) => liveMembers(pgid).length > 0;

/** Waits (briefly: a killed process takes milliseconds to go) until nothing of the group runs. */
export async function expectGroupGone(pgid: number) {
  await vi.waitFor(() => expect(liveMembers(pgid)).toEqual([]), { timeout: 3000, interval: 20 });
}
