// Writes of guides and people: a user's completion or favorite mark, a guide's
// collaborators and flags. Each is one statement (a flag runs inside `changeGuide`'s
// transaction, which makes the guide's new revision).
import type { Db } from './guides.queries.js';
import type { CollaboratorKind, MarkTable } from './guides.people.queries.js';

export interface MarkKey { userid: number; guideid: number; langid: string }

/** Sets (idempotently) or clears a mark; answers its date (null when cleared). */
export async function setMark(db: Db, table: MarkTable, key: MarkKey, on: boolean, now: number): Promise<number | null> {
  if (on) await db.insertInto(table).values({ ...key, date: now }).onConflict((oc) => oc.columns(['userid', 'guideid', 'langid']).doNothing()).execute();
  else await db.deleteFrom(table).where('userid', '=', key.userid).where('guideid', '=', key.guideid).where('langid', '=', key.langid).execute();
  const row = on ? await db.selectFrom(table).select('date').where('userid', '=', key.userid).where('guideid', '=', key.guideid).where('langid', '=', key.langid).executeTakeFirst() : undefined;
  return row?.date ?? null;
}

/** Adds a collaborator (idempotent). */
export async function addCollaborator(db: Db, guideid: number, kind: CollaboratorKind, memberid: number, addedBy: number | null, now: number): Promise<void> {
  await db.insertInto('guide_collaborators').values({ guideid, kind, memberid, added_by: addedBy, date: now })
    .onConflict((oc) => oc.columns(['guideid', 'kind', 'memberid']).doNothing()).execute();
}

/** Removes a collaborator; false when it was none. */
export async function removeCollaborator(db: Db, guideid: number, kind: CollaboratorKind, memberid: number): Promise<boolean> {
  const r = await db.deleteFrom('guide_collaborators').where('guideid', '=', guideid).where('kind', '=', kind).where('memberid', '=', memberid).executeTakeFirst();
  return Number(r.numDeletedRows) > 0;
}

/** Sets or clears a flag of a guide; answers whether anything changed. */
export async function setFlag(trx: Db, guideid: number, flagid: string, adding: boolean, userid: number | null, now: number): Promise<boolean> {
  const changed = adding
    ? (await trx.insertInto('guide_flags').values({ guideid, flagid, userid, date: now })
      .onConflict((oc) => oc.columns(['guideid', 'flagid']).doNothing()).executeTakeFirst()).numInsertedOrUpdatedRows
    : (await trx.deleteFrom('guide_flags').where('guideid', '=', guideid).where('flagid', '=', flagid).executeTakeFirst()).numDeletedRows;
  return Number(changed ?? 0) > 0;
}
