// PostgreSQL for tests: one migrated template per run, cloned into a fresh database per
// test file (CREATE DATABASE ... TEMPLATE is much faster than migrating each time).
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export function adminUrl(): string {
  return process.env.TEST_DATABASE_URL!;
}

export function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = '/' + name;
  return u.toString();
}

export async function adminQuery(sqlText: string) {
  const client = new pg.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    return await client.query(sqlText);
  } finally {
    await client.end();
  }
}

export async function cloneTemplate(template: string): Promise<string> {
  const name = `cp_t_${process.pid}_${randomBytes(4).toString('hex')}`;
  // Clones of one template may collide briefly; try again.
  for (let attempt = 0; ; attempt++) {
    try {
      await adminQuery(`CREATE DATABASE ${name} TEMPLATE ${template}`);
      return name;
    } catch (err) {
      if (attempt >= 20) throw err;
      await new Promise((r) => setTimeout(r, 100 + Math.random() * 200));
    }
  }
}

export async function dropDatabase(name: string) {
  await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
}
