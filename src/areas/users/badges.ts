// Badges are earned by rules, computed when asked (a fixed number of indexed queries per
// user, never one per row of a list). Areas add their own rules with `registerBadge`
// when their module loads (guides: first guide, ten guides; comments: first comment).
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

export type BadgeLevel = 'bronze' | 'silver' | 'gold';

export interface BadgeRule {
  badgeid: string;
  title: string;
  description: string;
  level: BadgeLevel;
  /** When the user earned it, or null if they have not. */
  earnedAt(db: Kysely<Database>, userid: number): Promise<number | null>;
}

const rules: BadgeRule[] = [
  {
    badgeid: 'welcome',
    title: 'Welcome',
    description: 'Joined the site.',
    level: 'bronze',
    async earnedAt(db, userid) {
      const r = await db.selectFrom('users').select('join_date').where('userid', '=', userid).executeTakeFirst();
      return r?.join_date ?? null;
    },
  },
  {
    badgeid: 'teammate',
    title: 'Teammate',
    description: 'Joined a team.',
    level: 'bronze',
    async earnedAt(db, userid) {
      const r = await db.selectFrom('team_members').select((eb) => eb.fn.min('join_date').as('d')).where('userid', '=', userid).executeTakeFirst();
      return r?.d == null ? null : Number(r.d);
    },
  },
  {
    badgeid: 'team_lead',
    title: 'Team lead',
    description: 'Leads a team.',
    level: 'silver',
    async earnedAt(db, userid) {
      const r = await db.selectFrom('team_members').select((eb) => eb.fn.min('join_date').as('d')).where('userid', '=', userid).where('is_lead', '=', 1).executeTakeFirst();
      return r?.d == null ? null : Number(r.d);
    },
  },
];

export function registerBadge(rule: BadgeRule) {
  if (!rules.some((r) => r.badgeid === rule.badgeid)) rules.push(rule);
}

export async function earnedBadges(db: Kysely<Database>, userid: number) {
  const dates = await Promise.all(rules.map((r) => r.earnedAt(db, userid)));
  return rules
    .map((r, i) => ({ badgeid: r.badgeid, title: r.title, description: r.description, level: r.level, date: dates[i] }))
    .filter((b): b is typeof b & { date: number } => b.date !== null);
}

export async function badgeCounts(db: Kysely<Database>, userid: number) {
  const counts = { bronze: 0, silver: 0, gold: 0 };
  for (const b of await earnedBadges(db, userid)) counts[b.level]++;
  return counts;
}
