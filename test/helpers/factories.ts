// Factories for the foundation's records. Areas add theirs in factories/<area>.ts.
import type { TestApp } from './app.js';
import type { Privilege } from '../../src/http/auth.js';
import { createUser, issueToken } from '../../src/areas/users/users.service.js';

let seq = 0;
export const unique = (prefix = 'x') => `${prefix}${process.pid}${++seq}`;

export interface TestUser {
  userid: number;
  email: string;
  password: string;
  token: string;
  username: string;
}

export const DEFAULT_PASSWORD = 'correct horse battery';

/** A user with a valid token. `privileges` default to ['User']. */
export async function makeUser(t: TestApp, opts: { privileges?: Privilege[]; username?: string; email?: string; unique_username?: string } = {}): Promise<TestUser> {
  const n = unique('u');
  const email = opts.email ?? `${n}@example.com`;
  const username = opts.username ?? `User ${n}`;
  const userid = await createUser(t.db, t.config, t.clock, { email, password: DEFAULT_PASSWORD, username, unique_username: opts.unique_username ?? null, privileges: opts.privileges ?? ['User'] });
  const { token } = await issueToken(t.db, t.config, t.clock, userid);
  return { userid, email, password: DEFAULT_PASSWORD, token, username };
}

export const makeAdmin = (t: TestApp) => makeUser(t, { privileges: ['Admin', 'User'] });
export const makeAuthor = (t: TestApp) => makeUser(t, { privileges: ['Author', 'User'] });
export const makeModerator = (t: TestApp) => makeUser(t, { privileges: ['Moderator', 'User'] });

/** A team owned by `owner` (a member and lead), with more members. */
export async function makeTeam(t: TestApp, owner: TestUser, members: Array<{ user: TestUser; lead?: boolean }> = []) {
  const now = t.clock.now();
  const name = unique('Team ');
  const row = await t.db.insertInto('teams').values({ name, name_lower: name.toLowerCase(), description: '', owner: owner.userid, location: '', latitude: null, longitude: null, reputation: 0, imageid: null, join_code: 'code-' + name.replace(/\W/g, ''), created_date: now }).returning(['teamid', 'join_code']).executeTakeFirstOrThrow();
  await t.db.insertInto('team_members').values({ teamid: row.teamid, userid: owner.userid, is_lead: 1, join_date: now }).execute();
  for (const m of members) await t.db.insertInto('team_members').values({ teamid: row.teamid, userid: m.user.userid, is_lead: m.lead ? 1 : 0, join_date: now }).execute();
  return { teamid: row.teamid, join_code: row.join_code, name };
}
