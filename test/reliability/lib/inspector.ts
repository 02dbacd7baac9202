// Looking into the database of a server process a test started (and killed): a connection
// of the test's own to the SQLite file or the PostgreSQL database, and polling for what a
// process does in its own time. Shared by the crash-safety tests (test/reliability/crash.test.ts,
// test/audit/processes.test.ts).
import SQLite from 'better-sqlite3';
import pg from 'pg';

export interface Db {
  query<T = any>(text: string): Promise<T[]>;
  close(): Promise<void>;
}

/** `location`: the SQLite file's path, or the PostgreSQL database's URL. */
export function openInspector(kind: 'sqlite' | 'postgres', location: string): Db {
  if (kind === 'sqlite') {
    const db = new SQLite(location, { fileMustExist: true });
    db.pragma('busy_timeout = 10000');
    return { query: async (text) => db.prepare(text).all() as any[], close: async () => { db.close(); } };
  }
  const client = new pg.Client({ connectionString: location });
  const ready = client.connect();
  return { query: async (text) => { await ready; return (await client.query(text)).rows; }, close: async () => { await ready; await client.end(); } };
}

/** Polls `fn` every 100 ms until it answers something truthy (generous limits: a loaded machine is slow). */
export async function waitFor<T>(what: string, fn: () => Promise<T | null | undefined | false>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (true) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
