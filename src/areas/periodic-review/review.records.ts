// Response records of the periodic review area, built in batches (a fixed number of
// queries for a whole page).
import type { Config } from '../../config.js';
import { loadUserSummaries } from '../users/users.queries.js';
import { toTeamSummaries } from '../teams/teams.queries.js';
import { reviewStatus } from './review.due.js';
import {
  docKey, documentCounts, loadTargets, openRequestCounts, reviewersOf, titleAndUrl,
  type Db, type DocumentWithSchedule, type ReviewRow, type ScheduleRow,
} from './review.queries.js';

export async function scheduleRecords(db: Db, config: Config, rows: ScheduleRow[]) {
  const prsids = rows.map((r) => r.prsid);
  const [reviewers, counts] = await Promise.all([reviewersOf(db, prsids), documentCounts(db, prsids)]);
  const userids = [...reviewers.values()].flatMap((r) => r.users);
  const teamids = [...new Set([...reviewers.values()].flatMap((r) => r.teams))];
  const [users, teamRows] = await Promise.all([
    loadUserSummaries(db, config, userids),
    teamids.length ? db.selectFrom('teams').selectAll().where('teamid', 'in', teamids).execute() : Promise.resolve([]),
  ]);
  const teams = new Map((await toTeamSummaries(db, config, teamRows)).map((t) => [t.teamid, t]));
  return rows.map((s) => {
    const r = reviewers.get(s.prsid) ?? { users: [], teams: [] };
    return {
      prsid: s.prsid,
      name: s.name,
      recurrence: s.recurrence as 'yearly' | 'interval',
      month: s.month,
      day: s.day,
      interval_days: s.interval_days,
      window_days: s.window_days,
      reviewers: {
        users: r.users.map((id) => users.get(id)).filter((u) => u !== undefined),
        teams: r.teams.map((id) => teams.get(id)).filter((t) => t !== undefined),
      },
      creator: s.userid_created,
      created_date: s.created_date,
      num_documents: counts.get(s.prsid) ?? 0,
    };
  });
}

export async function documentRecords(db: Db, config: Config, rows: DocumentWithSchedule[], now: number) {
  const [targets, open] = await Promise.all([loadTargets(db, rows), openRequestCounts(db, rows)]);
  return rows.map((d) => ({
    prdid: d.prdid,
    prsid: d.prsid,
    schedule_name: d.schedule_name,
    doctype: d.doctype as 'guide' | 'wiki',
    docid: d.docid,
    ...titleAndUrl(config, targets.get(docKey(d)), d),
    added_date: d.added_date,
    last_reviewed_date: d.last_reviewed_date,
    due_date: d.due_date,
    overdue_date: d.overdue_date,
    status: reviewStatus(d, now),
    open_change_requests: open.get(docKey(d)) ?? 0,
  }));
}

export async function reviewRecords(db: Db, config: Config, rows: ReviewRow[]) {
  const [targets, users] = await Promise.all([loadTargets(db, rows), loadUserSummaries(db, config, rows.map((r) => r.userid))]);
  return rows.map((r) => ({
    reviewid: r.reviewid,
    doctype: r.doctype as 'guide' | 'wiki',
    docid: r.docid,
    title: titleAndUrl(config, targets.get(docKey(r)), r).title,
    prsid: r.prsid,
    user: (r.userid ? users.get(r.userid) : undefined) ?? null,
    kind: r.kind as 'still_valid' | 'change_request' | 'reviewed_release',
    notes: r.notes,
    date: r.date,
    releaseid: r.releaseid,
    due_date: r.due_date,
    resolved_date: r.resolved_date,
  }));
}
