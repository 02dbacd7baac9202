// Frozen in time: never edit a migration that has landed; add a new one.
// The HTML of quizzes stored before imports sanitized it (an `html` element was stored and
// served as written, script included): each revision's JSON rewritten through the same
// sanitizer as imports (areas/quizzes/quizzes.html.ts), a page of revisions at a time.
import type { Kysely } from 'kysely';
import { sanitizeQuizHtml } from '../../areas/quizzes/quizzes.html.js';

const PAGE = 200;

export async function up(db: Kysely<any>): Promise<void> {
  let after = 0;
  for (;;) {
    const rows: Array<{ quiz_revisionid: number; quiz_json: string }> = await db.selectFrom('quiz_revisions').select(['quiz_revisionid', 'quiz_json'])
      .where('quiz_revisionid', '>', after).orderBy('quiz_revisionid').limit(PAGE).execute();
    if (!rows.length) return;
    for (const r of rows) {
      let json: unknown;
      try {
        json = JSON.parse(r.quiz_json);
      } catch {
        continue;
      }
      const text = JSON.stringify(sanitizeQuizHtml(json));
      if (text !== r.quiz_json) await db.updateTable('quiz_revisions').set({ quiz_json: text }).where('quiz_revisionid', '=', r.quiz_revisionid).execute();
    }
    after = rows[rows.length - 1].quiz_revisionid;
  }
}

export async function down(): Promise<void> {
  // what was removed is not put back
}
