// Preloaded into a benchmarked server (`npm run bench -- --statements DIR`, SQLite only):
// times every better-sqlite3 statement the process runs, by its SQL text. SQLite runs on
// the server's only thread, so these times are the event loop's: the split of a mixed load
// by statement that a CPU profile cannot give (Kysely's statements all show as one
// function there). Each SIGWINCH (a signal Node and close-with-grace leave alone) writes
// what was counted since the previous one to DIR/statements-N.txt (N from 1): each
// statement's runs, their total and their longest (what stalls every other request),
// slowest total first; and starts counting again. The bench sends one before each
// measured window and one after it. Plain JavaScript: loaded with `node --import`, before
// the app.
import { renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import process from 'node:process';
import Database from 'better-sqlite3';

const dir = process.env.STATEMENT_TIMES_DIR;
if (dir) {
  const probe = new Database(':memory:');
  const proto = Object.getPrototypeOf(probe.prepare('select 1'));
  probe.close();
  /** SQL text (whitespace folded) → [runs, nanoseconds, the longest run's nanoseconds]. */
  let stats = new Map();
  let since = process.hrtime.bigint();
  let dumps = 0;
  for (const method of ['all', 'get', 'run', 'iterate']) {
    const original = proto[method];
    proto[method] = function timed(...args) {
      const t0 = process.hrtime.bigint();
      try {
        return original.apply(this, args);
      } finally {
        const ns = Number(process.hrtime.bigint() - t0);
        const sql = this.source.replace(/\s+/g, ' ').trim();
        const s = stats.get(sql);
        if (s) { s[0]++; s[1] += ns; if (ns > s[2]) s[2] = ns; } else stats.set(sql, [1, ns, ns]);
      }
    };
  }
  process.on('SIGWINCH', () => {
    const windowMs = Number(process.hrtime.bigint() - since) / 1e6;
    const rows = [...stats].sort((a, b) => b[1][1] - a[1][1]);
    const totalMs = rows.reduce((sum, [, [, ns]]) => sum + ns, 0) / 1e6;
    const lines = rows.map(([sql, [n, ns, max]]) => `${(ns / 1e6).toFixed(1).padStart(9)} ms ${String(n).padStart(8)} × ${(ns / n / 1e3).toFixed(1).padStart(8)} µs ${(max / 1e3).toFixed(0).padStart(8)} µs  ${(100 * ns / 1e6 / windowMs).toFixed(1).padStart(5)} %  ${sql}`);
    const file = join(dir, `statements-${++dumps}.txt`);
    // Written whole, then renamed: the bench waits for the name.
    writeFileSync(`${file}.part`, `window ${windowMs.toFixed(0)} ms; statements ${totalMs.toFixed(0)} ms (${(100 * totalMs / windowMs).toFixed(1)} %)\n` +
      '  total ms     runs      each  longest  of window  statement\n' + lines.join('\n') + '\n');
    renameSync(`${file}.part`, file);
    stats = new Map();
    since = process.hrtime.bigint();
  });
}
