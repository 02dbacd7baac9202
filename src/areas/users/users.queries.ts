// Queries of the users area: plain functions taking the database (or a transaction) first.
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import { isPostgres, toBool } from '../../db/helpers.js';
import { parsePrivileges } from '../../http/auth.js';
import { loadImageObjects } from '../media/image-object.js';
import type { ImageObject } from '../../http/schemas.js';
import type { UserTable } from './users.tables.js';
import type { UserSummary } from './users.schemas.js';

export type UserRow = Selectable<UserTable>;

export const userUrl = (config: Config, userid: number) => `${config.publicUrl}/api/2.0/users/${userid}`;

export function findUser(db: Kysely<Database>, userid: number) {
  return db.selectFrom('users').selectAll().where('userid', '=', userid).executeTakeFirst();
}

/** By e-mail or unique username (never the display name, which is not unique). */
export function findUserByLogin(db: Kysely<Database>, login: string) {
  const l = login.trim().toLowerCase();
  return db.selectFrom('users').selectAll().where((eb) => eb.or([eb('email', '=', l), eb('unique_username', '=', l)])).executeTakeFirst();
}

/** teamids per user, for a page of users in one query. */
export async function teamIdsByUser(db: Kysely<Database>, userids: number[]): Promise<Map<number, number[]>> {
  const out = new Map<number, number[]>();
  if (userids.length === 0) return out;
  const rows = await db.selectFrom('team_members').select(['userid', 'teamid']).where('userid', 'in', [...new Set(userids)]).orderBy('teamid').execute();
  for (const r of rows) {
    const list = out.get(r.userid) ?? [];
    list.push(r.teamid);
    out.set(r.userid, list);
  }
  return out;
}

export interface SummaryExtras {
  enabled: boolean;
  banned: number;
}

/** User summaries for rows already read: two batched queries for the whole page. */
export async function toUserSummaries(db: Kysely<Database>, config: Config, rows: UserRow[]): Promise<Array<UserSummary & SummaryExtras>> {
  const [teams, images] = await Promise.all([
    teamIdsByUser(db, rows.map((r) => r.userid)),
    loadImageObjects(db, config, rows.map((r) => r.imageid)),
  ]);
  return rows.map((r) => summaryOf(config, r, teams.get(r.userid) ?? [], images));
}

function summaryOf(config: Config, r: UserRow, teams: number[], images: Map<number, ImageObject>): UserSummary & SummaryExtras {
  return {
    userid: r.userid,
    username: r.username,
    unique_username: r.unique_username,
    join_date: r.join_date,
    image: r.imageid ? images.get(r.imageid) ?? null : null,
    reputation: r.reputation,
    url: userUrl(config, r.userid),
    teams,
    privileges: parsePrivileges(r.privileges),
    enabled: toBool(r.enabled),
    banned: r.banned,
  };
}

/**
 * A user's teamids as one text ('3,17'): a column of the user's own row, or of a row that
 * names the user (a new comment's author). The summaries by id then cost one round trip,
 * not two (on PostgreSQL every record that embeds a user, a new comment's author first,
 * waited for both).
 */
export function teamidsOf(db: Kysely<Database>, userid: 'users.userid' | 'comments.userid') {
  return isPostgres(db)
    ? sql<string | null>`(select string_agg(tm.teamid::text, ',') from team_members tm where tm.userid = ${sql.ref(userid)})`
    : sql<string | null>`(select group_concat(tm.teamid) from team_members tm where tm.userid = ${sql.ref(userid)})`;
}

/** Teamids from `teamidsOf`, ascending, as the summaries list them. */
export function parseTeamids(text: string | null): number[] {
  return text ? text.split(',').map(Number).sort((a, b) => a - b) : [];
}

/** Summaries by id, for records that embed users (authors, signers...): one query, plus one for avatars when any has one. */
export async function loadUserSummaries(db: Kysely<Database>, config: Config, userids: Array<number | null | undefined>): Promise<Map<number, UserSummary & SummaryExtras>> {
  const ids = [...new Set(userids.filter((x): x is number => typeof x === 'number'))];
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('users').selectAll().select(teamidsOf(db, 'users.userid').as('teamids')).where('userid', 'in', ids).execute();
  const images = await loadImageObjects(db, config, rows.map((r) => r.imageid));
  return new Map(rows.map(({ teamids, ...row }) => [row.userid, summaryOf(config, row, parseTeamids(teamids), images)]));
}

export async function userSummary(db: Kysely<Database>, config: Config, row: UserRow) {
  return (await toUserSummaries(db, config, [row]))[0];
}

type Db = Kysely<Database>;

/** A page of users by userid, those who joined since a time when given. */
export function listUsers(db: Db, q: { offset: number; limit: number; order?: 'ASC' | 'DESC'; joinedSince?: number }) {
  let sel = db.selectFrom('users').selectAll();
  if (q.joinedSince !== undefined) sel = sel.where('join_date', '>=', q.joinedSince);
  return sel.orderBy('userid', q.order === 'DESC' ? 'desc' : 'asc').limit(q.limit).offset(q.offset).execute();
}

/** The enabled users among these ids (a page of search hits), in no order. */
export function enabledUsersIn(db: Db, userids: number[]) {
  return db.selectFrom('users').selectAll().where('userid', 'in', userids).where('enabled', '=', 1).execute();
}

/** The user whose SSO id, e-mail address (as stored: lower case) or employee id is `value`. */
export function findUserBy(db: Db, column: 'sso_userid' | 'email' | 'employee_id', value: string) {
  return db.selectFrom('users').selectAll().where(column, '=', value).executeTakeFirst();
}

/** Which of these unique usernames are taken. */
export async function takenUsernames(db: Db, names: string[]): Promise<Set<string | null>> {
  if (names.length === 0) return new Set();
  return new Set((await db.selectFrom('users').select('unique_username').where('unique_username', 'in', names).execute()).map((r) => r.unique_username));
}

/** A page of the accounts a user created, by userid. */
export function createdUsers(db: Db, creator: number, page: { offset: number; limit: number }) {
  return db.selectFrom('users').selectAll().where('created_by', '=', creator).orderBy('userid').limit(page.limit).offset(page.offset).execute();
}
