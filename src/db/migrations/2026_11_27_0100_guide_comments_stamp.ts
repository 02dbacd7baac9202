// Frozen in time: never edit a migration that has landed; add a new one.
// A comment on a guide itself (context 'guide') no longer bumps the guide's cache_stamp.
// The guide's full record shows the comments of its steps (steps[].comments), not those
// on the guide, so the bump only threw the cached record away: the next read rebuilt it,
// and every such comment wrote the guide's row as well (one more page in its commit).
// Comments on steps bump as before. The triggers of 2026_11_22_1420_guide_cache on
// `comments` are replaced; `down` puts them back.
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../helpers.js';

const EVENTS = [['insert', 'ai', 'NEW'], ['delete', 'ad', 'OLD'], ['update', 'au', 'NEW']] as const;

const stepBump = (r: string) => `update guides set cache_stamp = cache_stamp + 1 where guideid = (select s.guideid from guide_steps s where s.stepid = ${r}.contextid)`;
const anyBump = (r: string) => `update guides set cache_stamp = cache_stamp + 1 where guideid = case when ${r}.context = 'guide' then ${r}.contextid else (select s.guideid from guide_steps s where s.stepid = ${r}.contextid) end`;

async function replace(db: Kysely<any>, when: (r: string) => string, body: (r: string) => string): Promise<void> {
  for (const [event, suffix, row] of EVENTS) {
    const name = `guide_cache_comments_${suffix}`;
    if (isPostgres(db)) {
      await sql.raw(`drop trigger if exists ${name} on comments`).execute(db);
      await sql.raw(`create or replace function ${name}() returns trigger language plpgsql as $fn$
begin
  ${body(row)};
  return null;
end
$fn$`).execute(db);
      await sql.raw(`create trigger ${name} after ${event} on comments for each row when (${when(row)}) execute function ${name}()`).execute(db);
    } else {
      await sql.raw(`drop trigger if exists ${name}`).execute(db);
      await sql.raw(`create trigger ${name} after ${event} on comments for each row when ${when(row)} begin ${body(row)}; end`).execute(db);
    }
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  await replace(db, (r) => `${r}.context = 'step'`, stepBump);
}

export async function down(db: Kysely<any>): Promise<void> {
  await replace(db, (r) => `${r}.context in ('guide', 'step')`, anyBump);
}
