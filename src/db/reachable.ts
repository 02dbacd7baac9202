// Before anything else uses the database at start: a PostgreSQL that refuses the connection
// (wrong password, no such database, nothing listening) is reported in one line naming
// DATABASE_URL, its password masked, instead of a pool's stack trace.
import pg from 'pg';
import { maskUrl } from '../config.rules.js';
import { dialectOf } from './database.js';

export async function databaseProblem(url: string): Promise<string | null> {
  if (dialectOf(url) !== 'postgres') return null;
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 15_000 });
  client.on('error', () => {}); // a connection that fails later is reported by the connect below
  try {
    await client.connect();
    await client.query('select 1');
    return null;
  } catch (err) {
    const e = err as Error & { code?: string };
    return `DATABASE_URL (${maskUrl(url)}): cannot connect: ${e.message || e.code || String(err)}`;
  } finally {
    await client.end().catch(() => {});
  }
}
