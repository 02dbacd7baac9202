// Frozen in time: never edit a migration that has landed; add a new one.
// A guide's cache_stamp now also moves when its own row changes (any column a record
// shows), whoever writes it: an edit, an import, SQL by hand. Until now only what the row
// points at moved it (comments, flags, owners, images, prerequisites: 2026_11_22_1420), and
// the row's own columns were vouched for by reading them back: a kept list page or
// suggestion, after any guide changed anywhere (the 'guides' stamp), read all the columns
// its records show of its 10 or 20 rows and compared a digest of them (on SQLite 80 µs for
// ten rows in a loop, their text decoded, against 45 for their keys and stamps). Now
// (guideid, langid, cache_stamp) vouch for a row alone (guides.queries.ts, pageCheckOf),
// and a guide's full record, kept under its (revisionid, cache_stamp), no longer outlives
// a change of its row made without a revision.
//
// SQLite: a trigger after the update bumps the stamp unless the statement moved it itself
// (the app's edits do, so that what the update returns is the row as committed: SQLite's
// RETURNING does not show what an AFTER trigger wrote). PostgreSQL: a trigger before the
// update sets the new stamp in the row being written. No index holds cache_stamp: an
// index on it (tried: guides_list) made the checks read an index alone, but every edit
// wrote that index's entry again (PATCH 10 % slower on SQLite), and on PostgreSQL every
// bump of an indexed column writes an entry in each of the table's indexes (no HOT update).
import { sql, type Kysely } from 'kysely';
import { isPostgres } from '../helpers.js';

/** Columns of guides a record shows (as 2026_11_22_1420 lists them: all but cache_stamp). */
const GUIDE_COLUMNS = 'guideid, langid, revisionid, userid, type, category, title, subject, summary, introduction, conclusion, difficulty, '
  + 'time_required, time_required_min, time_required_max, public, deleted, deleted_date, imageid, step_imageid, parts, tools, documents, '
  + 'created_date, modified_date, published_date';

const NAME = 'guide_cache_guides_self';

export async function up(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    // Set on every trigger function that reads the row (2026_11_27_0800_trigger_generic_plans).
    await sql.raw(`create function ${NAME}() returns trigger language plpgsql set plan_cache_mode = force_generic_plan as $fn$
begin
  NEW.cache_stamp := OLD.cache_stamp + 1;
  return NEW;
end
$fn$`).execute(db);
    await sql.raw(`create trigger ${NAME} before update of ${GUIDE_COLUMNS} on guides for each row when (NEW.cache_stamp = OLD.cache_stamp) execute function ${NAME}()`).execute(db);
  } else {
    await sql.raw(`create trigger ${NAME} after update of ${GUIDE_COLUMNS} on guides for each row when NEW.cache_stamp = OLD.cache_stamp
      begin update guides set cache_stamp = cache_stamp + 1 where guideid = NEW.guideid and langid = NEW.langid; end`).execute(db);
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  if (isPostgres(db)) {
    await sql.raw(`drop trigger ${NAME} on guides`).execute(db);
    await sql.raw(`drop function ${NAME}()`).execute(db);
  } else {
    await sql.raw(`drop trigger ${NAME}`).execute(db);
  }
}
