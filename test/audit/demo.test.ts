// The demo seed writes no audit entries (docs/audit.md), whichever areas' change functions it calls.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../helpers/app.js';
import { seedDemoOnce } from '../../src/demo/seed.js';
import { auditEntries } from './helpers.js';

describe('the demo seed and the audit log', () => {
  const t = appForFile({}, async () => {
    expect((await seedDemoOnce(t.db, t.config, t.clock, () => {})).seeded).toBe(true);
  });

  it('the seeded site has courses, quizzes, teams, modules and work log entries, and no audit entry', async () => {
    for (const table of ['courses', 'quizzes', 'teams', 'training_modules', 'work_log', 'quiz_sessions', 'course_stage_completions'] as const) {
      const n = await t.db.selectFrom(table).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
      expect(Number(n.n), table).toBeGreaterThan(0);
    }
    expect((await auditEntries(t)).map((e) => e.action)).toEqual([]);
  });
});
