// The SQL statements the app sends to its database while a piece of a test runs, captured
// through the database handle's query listener (one listener at a time: the capture ends,
// and the listener is removed, when `fn` settles, thrown or not). For tests that count a
// route's statements or check which ones a transaction holds.
import type { TestApp } from './app.js';

/** The SQL of every statement the app runs while `fn` runs, in order (failed ones included). */
export async function statementsOf(t: Pick<TestApp, 'app'>, fn: () => Promise<unknown>): Promise<string[]> {
  const out: string[] = [];
  const handle = t.app.dbHandle;
  handle.setQueryListener!((e) => { out.push(e.query.sql); });
  try {
    await fn();
  } finally {
    handle.setQueryListener!(null);
  }
  return out;
}
