// Building the user records that are more than a summary.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import { badgeCounts, type BadgeRule } from './badges.js';
import { userSummary, userUrl, type UserRow } from './users.queries.js';

/** `badges`: every area's badge rules (`app.badges`). */
export async function userDetailRecord(db: Kysely<Database>, config: Config, badges: readonly BadgeRule[], row: UserRow) {
  const [summary, badge_counts] = await Promise.all([userSummary(db, config, row), badgeCounts(badges, db, row.userid)]);
  return { ...summary, badge_counts, location: row.location, about: row.about, permissions: (row.permissions ?? '').split(',').filter(Boolean) };
}

export async function userSelfRecord(db: Kysely<Database>, config: Config, badges: readonly BadgeRule[], row: UserRow) {
  const detail = await userDetailRecord(db, config, badges, row);
  const base = userUrl(config, row.userid);
  return {
    ...detail,
    email: row.email,
    sso_userid: row.sso_userid,
    employee_id: row.employee_id,
    links: { self: base, guides: `${base}/guides`, completions: `${base}/completions`, favorites: `${base}/favorites/guides` },
  };
}
