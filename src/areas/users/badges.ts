// Badges are earned by rules, computed when asked (a fixed number of indexed queries per
// user, never one per row of a list). Each area names its rules in its `Area.badges` slot
// (the users area: the foundation's rules below; guides: first guide, ten guides);
// app.ts joins them, in the order of `areas`, into `app.badges`.
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

/** The foundation's rules: the users area's `badges` slot. */
export const foundationBadges: BadgeRule[] = [
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

/** Every area's rules (the slots joined in app.ts); a badgeid named twice counts once. */
export function joinBadgeRules(lists: Array<BadgeRule[] | undefined>): BadgeRule[] {
  const out: BadgeRule[] = [];
  for (const rule of lists.flatMap((l) => l ?? [])) if (!out.some((r) => r.badgeid === rule.badgeid)) out.push(rule);
  return out;
}

export async function earnedBadges(rules: readonly BadgeRule[], db: Kysely<Database>, userid: number) {
  const dates = await Promise.all(rules.map((r) => r.earnedAt(db, userid)));
  return rules
    .map((r, i) => ({ badgeid: r.badgeid, title: r.title, description: r.description, level: r.level, date: dates[i] }))
    .filter((b): b is typeof b & { date: number } => b.date !== null);
}

export async function badgeCounts(rules: readonly BadgeRule[], db: Kysely<Database>, userid: number) {
  const counts = { bronze: 0, silver: 0, gold: 0 };
  for (const b of await earnedBadges(rules, db, userid)) counts[b.level]++;
  return counts;
}
