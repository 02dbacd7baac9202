// The demo site: loaded once, the first time the server starts on an empty database.
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Config } from '../config.js';
import type { Clock } from '../clock.js';
import { generatePassword } from '../config.js';
import { areas } from '../areas/index.js';
import type { DemoContext } from '../areas/area.js';

const SEEDED_KEY = 'demo_seeded';

export async function seedDemoOnce(db: Kysely<Database>, config: Config, clock: Clock, log: (line: string) => void): Promise<{ seeded: boolean; password?: string }> {
  const done = await db.selectFrom('site_state').select('value').where('key', '=', SEEDED_KEY).executeTakeFirst();
  const anyUser = await db.selectFrom('users').select('userid').limit(1).executeTakeFirst();
  if (done || anyUser) return { seeded: false };
  const password = config.adminPassword || generatePassword();
  log('loading the demo site...');
  await db.transaction().execute(async (trx) => {
    const ctx: DemoContext = { db: trx, config, clock, password, users: {}, teams: {}, ids: {}, log: (l) => log(`  ${l}`) };
    for (const area of areas) if (area.seedDemo) await area.seedDemo(ctx);
    await trx.insertInto('site_state').values({ key: SEEDED_KEY, value: String(clock.now()) }).execute();
  });
  return { seeded: true, password };
}
