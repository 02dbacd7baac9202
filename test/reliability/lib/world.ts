// A populated app for the generated suites: every area's demo content (so that routes of
// areas that land later have records to hit), a few more users and teams from the
// factories, and a cast of identities with tokens. Path parameters are drawn from what
// the database holds, so valid-looking values often hit existing resources.
import { sql, type Kysely } from 'kysely';
import type { Config } from '../../../src/config.js';
import { isPostgres, listTables } from '../../../src/db/helpers.js';
import { seedDemoOnce } from '../../../src/demo/seed.js';
import type { Privilege } from '../../../src/http/auth.js';
import { hashToken } from '../../../src/http/passwords.js';
import { issueToken } from '../../../src/areas/users/users.service.js';
import { buildTestApp, type TestApp } from '../../helpers/app.js';
import { makeTeam, makeUser, DEFAULT_PASSWORD } from '../../helpers/factories.js';

export const DEMO_PASSWORD = 'demo password for tests';

export type IdentityKey = 'admin' | 'author' | 'moderator' | 'user' | 'owner' | 'lead' | 'member' | 'other';

export interface Identity {
  key: IdentityKey;
  userid: number;
  email: string;
  password: string;
  token: string;
  privileges: Privilege[];
}

interface Saved { privileges: string; enabled: number; banned: number; password_hash: string; email: string; username: string; unique_username: string | null }

export interface World {
  t: TestApp;
  db: Kysely<any>;
  ids: Record<IdentityKey, Identity>;
  /** The team owned by `owner`, led by `lead` too, with `member` as a plain member. */
  teamid: number;
  /** Puts the identities back (privileges, enabled, password, a valid token) after a fuzz case. */
  restore(): Promise<void>;
  /**
   * Existing value tuples for these column names, from the table that best holds them
   * (`hint`: the literal segments of the path, e.g. ['wikis'], to prefer the table named there).
   */
  tuples(names: string[], hint?: string[]): Promise<Array<Record<string, string>>>;
  /**
   * Like `tuples`, but rows of the holding table owned (`owner`) or not owned (`notOwner`)
   * by a user, when the table has an owner column; `fixed` pins some values.
   */
  ownedTuples(names: string[], filter: { owner?: number; notOwner?: number; fixed?: Record<string, string>; hint?: string[] }): Promise<{ rows: Array<Record<string, string>>; ownerColumn: string | null }>;
  /** Puts the shared team fixture back (the team, its lead and member) after a request that removed them. */
  repair(): Promise<void>;
  /** Column names of every table. */
  columns(): Promise<Map<string, string[]>>;
  close(): Promise<void>;
}

export async function tableColumns(db: Kysely<any>): Promise<Map<string, string[]>> {
  const out = new Map<string, string[]>();
  for (const t of await listTables(db)) {
    if (isPostgres(db)) {
      const r = await sql<{ c: string }>`select column_name as c from information_schema.columns where table_schema = current_schema() and table_name = ${t} order by ordinal_position`.execute(db);
      out.set(t, r.rows.map((x) => x.c));
    } else {
      const r = await sql<{ name: string }>`select name from pragma_table_info(${t})`.execute(db);
      out.set(t, r.rows.map((x) => x.name));
    }
  }
  return out;
}

/** Rows not deleted: soft-deleted records (a `deleted` flag or a `deleted_date`) answer 404 and are no use as existing ones. */
function liveRows<Q extends { where: (...args: any[]) => Q }>(q: Q, cols: string[]): Q {
  let out = q;
  if (cols.includes('deleted')) out = out.where(sql.ref('deleted'), '=', 0);
  if (cols.includes('deleted_date')) out = out.where(sql.ref('deleted_date'), 'is', null);
  return out;
}

/** A path value cannot be empty: such rows are not candidates. */
const nonEmpty = (row: Record<string, string>) => Object.values(row).every((v) => v !== '');

/** Literal segments of an OpenAPI path: /wikis/{namespace}/{title} -> ['wikis']. */
export const pathHint = (path: string) => path.split('/').filter((s) => s && !s.startsWith('{'));

/** Columns that say which user a row belongs to, in order of preference. */
export const OWNER_COLUMNS = ['owner', 'authorid', 'author_userid', 'author', 'created_by', 'creator', 'userid'];

/** `guides` holds `guideid`, `users` holds `userid`: the table a single id parameter names. */
function ownsId(table: string, name: string): boolean {
  const singular = table.replace(/ies$/, 'y').replace(/s$/, '');
  return `${singular}id` === name || `${table}id` === name;
}

export async function buildWorld(options: { config?: Partial<Config> } = {}): Promise<World> {
  const t = await buildTestApp({ config: { adminPassword: DEMO_PASSWORD, ...options.config } });
  t.app.jobs.pause();
  const db = t.db as Kysely<any>;
  await seedDemoOnce(t.db, t.config, t.clock, () => {});

  const ids = {} as Record<IdentityKey, Identity>;
  const demo: Array<[IdentityKey, string]> = [['admin', t.config.adminEmail], ['author', 'author@example.com'], ['moderator', 'moderator@example.com'], ['user', 'user@example.com']];
  for (const [key, email] of demo) {
    const row = await db.selectFrom('users').select(['userid', 'privileges']).where('email', '=', email).executeTakeFirst();
    if (!row) throw new Error(`the demo site has no ${email}`);
    const { token } = await issueToken(t.db, t.config, t.clock, row.userid);
    ids[key] = { key, userid: row.userid, email, password: DEMO_PASSWORD, token, privileges: String(row.privileges).split(',') as Privilege[] };
  }
  for (const key of ['owner', 'lead', 'member', 'other'] as const) {
    const u = await makeUser(t, { username: `Rel ${key}` });
    ids[key] = { key, userid: u.userid, email: u.email, password: DEFAULT_PASSWORD, token: u.token, privileges: ['User'] };
  }
  // Identifiers some lookups need, on one account.
  await db.updateTable('users').set({ sso_userid: `sso-${ids.member.userid}`, employee_id: `E-${ids.member.userid}` }).where('userid', '=', ids.member.userid).execute();
  const team = await makeTeam(t, { ...ids.owner, username: 'Rel owner' }, [{ user: { ...ids.lead, username: '' }, lead: true }, { user: { ...ids.member, username: '' } }]);
  // A few more records beside the demo site's, owned by different people.
  for (let i = 0; i < 3; i++) await makeUser(t);
  await makeTeam(t, { ...ids.author, username: '' }, [{ user: { ...ids.user, username: '' } }]);
  await makeTeam(t, { ...ids.moderator, username: '' });
  await makeTeam(t, { ...ids.admin, username: '' }, [{ user: { ...ids.other, username: '' }, lead: true }]);

  const saved = new Map<number, Saved>();
  for (const row of await db.selectFrom('users').select(['userid', 'privileges', 'enabled', 'banned', 'password_hash', 'email', 'username', 'unique_username']).where('userid', 'in', Object.values(ids).map((i) => i.userid)).execute()) {
    saved.set(row.userid, row as Saved);
  }

  async function restore() {
    const rows = await db.selectFrom('users').select(['userid', 'privileges', 'enabled', 'banned', 'password_hash', 'email', 'username', 'unique_username']).where('userid', 'in', [...saved.keys()]).execute();
    for (const row of rows) {
      const want = saved.get(row.userid)!;
      const diff = Object.fromEntries(Object.entries(want).filter(([k, v]) => (row as any)[k] !== v));
      if (Object.keys(diff).length) {
        try {
          await db.updateTable('users').set({ ...diff, ...(diff.username ? { username_lower: want.username.toLowerCase() } : {}) }).where('userid', '=', row.userid).execute();
        } catch {
          // The e-mail or unique name was taken meanwhile: keep the rest.
          const { email: _e, unique_username: _u, ...rest } = diff;
          if (Object.keys(rest).length) await db.updateTable('users').set(rest).where('userid', '=', row.userid).execute();
        }
      }
    }
    // One query tells which tokens still work; only those that do not are resolved again.
    const now = t.clock.now();
    const all = Object.values(ids);
    const live = new Set((await db.selectFrom('tokens').innerJoin('users', 'users.userid', 'tokens.userid').select('token_hash').where('token_hash', 'in', all.map((i) => hashToken(i.token)))
      .where('revoked_date', 'is', null).where('expires_date', '>', now).whereRef('tokens.credentials_version', '=', 'users.credentials_version').execute()).map((r) => r.token_hash));
    for (const id of all) {
      if (!live.has(hashToken(id.token))) id.token = (await issueToken(t.db, t.config, t.clock, id.userid)).token;
    }
  }

  let columnCache: Map<string, string[]> | null = null;
  async function columns() {
    columnCache ??= await tableColumns(db);
    return columnCache;
  }

  const bestTable = new Map<string, string | null>();
  async function holder(names: string[], hint: string[] = []): Promise<string | null> {
    const key = `${names.join(',')}|${hint.join('/')}`;
    if (!bestTable.has(key)) {
      const cols = await columns();
      const holders = [...cols.entries()].filter(([, c]) => names.every((n) => c.includes(n))).map(([tname]) => tname);
      // Prefer the table the (last) id names, then a table the path names (/wikis/...: wikis),
      // then the narrowest link table.
      const named = (h: string) => hint.some((seg) => seg.toLowerCase() === h || `${seg.toLowerCase()}s` === h || seg.toLowerCase() === `${h}s`);
      // An area's table named after the path's segment with the area's prefix (/periodic_review/documents: review_documents) comes next.
      const prefixed = (h: string) => hint.some((seg) => h.endsWith(`_${seg.toLowerCase()}`) || h.endsWith(`_${seg.toLowerCase()}s`));
      const best = holders.find((h) => ownsId(h, names[names.length - 1])) ?? holders.find(named) ?? holders.find(prefixed)
        ?? holders.sort((a, b) => cols.get(a)!.length - cols.get(b)!.length)[0] ?? null;
      bestTable.set(key, best);
    }
    return bestTable.get(key)!;
  }

  async function ownedTuples(names: string[], filter: { owner?: number; notOwner?: number; fixed?: Record<string, string>; hint?: string[] }) {
    if (names.length === 0) return { rows: [{}], ownerColumn: null };
    const table = await holder(names, filter.hint);
    if (!table) return { rows: await tuples(names, filter.hint), ownerColumn: null };
    const cols = (await columns()).get(table)!;
    const ownerColumn = table === 'users' ? 'userid' : OWNER_COLUMNS.find((c) => cols.includes(c)) ?? null;
    let q = liveRows(db.selectFrom(table).select(names.map((n) => sql.ref(n).as(n))).distinct(), cols);
    for (const n of names) q = q.where(sql.ref(n), 'is not', null);
    for (const [k, v] of Object.entries(filter.fixed ?? {})) if (names.includes(k)) q = q.where(sql.ref(k), '=', /^\d+$/.test(v) ? Number(v) : v);
    if (ownerColumn && filter.owner !== undefined) q = q.where(sql.ref(ownerColumn), '=', filter.owner);
    if (ownerColumn && filter.notOwner !== undefined) q = q.where(sql.ref(ownerColumn), '!=', filter.notOwner);
    for (const n of names) q = q.orderBy(sql.ref(n));
    const rows = (await q.limit(50).execute()).map((r: any) => Object.fromEntries(names.map((n) => [n, String(r[n])]))).filter(nonEmpty);
    return { rows, ownerColumn };
  }

  async function repair() {
    let team = await db.selectFrom('teams').select(['teamid', 'owner']).where('teamid', '=', teamState.teamid).executeTakeFirst();
    if (!team) {
      teamState.teamid = (await makeTeam(t, { ...ids.owner, username: '' })).teamid;
      team = { teamid: teamState.teamid, owner: ids.owner.userid };
    }
    if (team.owner !== ids.owner.userid) await db.updateTable('teams').set({ owner: ids.owner.userid }).where('teamid', '=', team.teamid).execute();
    for (const [who, lead] of [[ids.owner, 1], [ids.lead, 1], [ids.member, 0]] as const) {
      const m = await db.selectFrom('team_members').select('is_lead').where('teamid', '=', team.teamid).where('userid', '=', who.userid).executeTakeFirst();
      if (!m) await db.insertInto('team_members').values({ teamid: team.teamid, userid: who.userid, is_lead: lead, join_date: t.clock.now() }).execute();
      else if (m.is_lead !== lead) await db.updateTable('team_members').set({ is_lead: lead }).where('teamid', '=', team.teamid).where('userid', '=', who.userid).execute();
    }
    // Nobody else is a member of it: `other` must stay a stranger to this team.
    await db.deleteFrom('team_members').where('teamid', '=', team.teamid).where('userid', 'not in', [ids.owner.userid, ids.lead.userid, ids.member.userid]).execute();
  }

  async function tuples(names: string[], hint: string[] = []): Promise<Array<Record<string, string>>> {
    if (names.length === 0) return [{}];
    const table = await holder(names, hint);
    if (table) {
      let q = liveRows(db.selectFrom(table).select(names.map((n) => sql.ref(n).as(n))).distinct(), (await columns()).get(table)!);
      for (const n of names) q = q.where(sql.ref(n), 'is not', null);
      for (const n of names) q = q.orderBy(sql.ref(n));
      const rows = await q.limit(200).execute();
      return rows.map((r: any) => Object.fromEntries(names.map((n) => [n, String(r[n])]))).filter(nonEmpty);
    }
    if (names.length === 1) return [];
    // No table holds them all: combine the values of each.
    const parts = await Promise.all(names.map((n) => tuples([n], hint)));
    if (parts.some((p) => p.length === 0)) return [];
    const out: Array<Record<string, string>> = [];
    for (let i = 0; i < 50; i++) out.push(Object.assign({}, ...parts.map((p, j) => p[(i * (j + 1)) % p.length])));
    return out;
  }

  const teamState = { teamid: team.teamid };
  return {
    t, db, ids, restore, tuples, ownedTuples, repair, columns, close: () => t.close(),
    get teamid() { return teamState.teamid; },
  };
}
