// The benchmark site's workforce: courses, their assignments to teams and users, each
// reached user's stage statuses and completions and stored assignee row, supervisor ratings
// and finished work log entries, in proportion to the number of users. Rows only (arrays
// in the column order of WORKFORCE_COLUMNS); bench/seed.ts writes them. Consistent as the
// app's own writes would leave them: an assignee row per (course, user) reached, from the
// earliest assignment reaching the user, its status, progress, overdue flag and next check
// as shared/course-progress.ts `refreshAssignees` computes them, and the courses' counts.
//
// Proportions (a plant: teams of about 25, each person assigned about ten courses):
//   courses      users / 8 (at least 4), each of 3 to 5 stages on random guides;
//   assignments  2 to 4 teams per course, and 1 to 5 users directly on one course in 5;
//   completions  per user reached: 0 to all stages completed, in order;
//   ratings      a team's lead rates a member on a guide of the team's courses, 1 pair in 5;
//   work log     a finished entry for 1 completed guide stage in 3 (skills' practice).

type Rng = { next(): number; int(lo: number, hi: number): number; pick<T>(list: readonly T[]): T };

/** Columns as bench/seed.ts's sinks take them (`name:type`, the type for PostgreSQL arrays). */
export const WORKFORCE_COLUMNS = {
  courses: ['wikiid:int4', 'langid:text', 'title:text', 'title_lower:text', 'contents_raw:text', 'created_date:int8', 'modified_date:int8', 'stages_count:int4', 'assignee_count:int4', 'completion_percentage:int4'],
  course_stages: ['course_stageid:int4', 'wikiid:int4', 'position:int4', 'doctype:text', 'docid:int4', 'strictness:text'],
  course_assignments: ['course_assignmentid:int4', 'wikiid:int4', 'assignee_userid:int4', 'assignee_teamid:int4', 'userid_assigner:int4', 'due_within:int8', 'created_date:int8'],
  course_assignees: ['course_assigneeid:int4', 'wikiid:int4', 'userid:int4', 'course_assignmentid:int4', 'username:text', 'status:int4', 'total_stages:int4', 'completed_stages:int4', 'stage_progress:int4', 'assignment_date:int8', 'due_date:int8', 'course_completion_date:int8', 'overdue:int4', 'next_check_date:int8'],
  course_stage_completions: ['course_assignment_stage_completionid:int4', 'course_stageid:int4', 'wikiid:int4', 'userid:int4', 'doctype:text', 'docid:int4', 'doc_revisionid:int4', 'via:text', 'init_date:int8', 'end_date:int8'],
  course_stage_statuses: ['course_stageid:int4', 'userid:int4', 'wikiid:int4', 'status:text', 'completionid:int4', 'modified_date:int8'],
  skills_supervisor_ratings: ['userid:int4', 'doctype:text', 'docid:int4', 'rating:float8', 'rated_by:int4', 'date:int8'],
  work_log: ['entryid:int4', 'guideid:int4', 'langid:text', 'revisionid:int4', 'userid:int4', 'userid_created:int4', 'status:text', 'notes:text', 'start_date:int8', 'end_date:int8', 'status_date:int8', 'modified_date:int8', 'active_seconds:int8'],
} as const;
export type WorkforceTable = keyof typeof WORKFORCE_COLUMNS;
export type WorkforceRows = Record<WorkforceTable, unknown[][]>;

export interface WorkforceInput {
  r: Rng;
  /** Users 1..users exist; `usernameLower(userid)` is their stored lower-cased name. */
  users: number;
  usernameLower(userid: number): string;
  /** Teams 1..teams with their members (ordered; a user is in one team) and their lead. */
  membersOf: Map<number, number[]>;
  leadOf: Map<number, number>;
  teams: number;
  /** Guides 1..guides exist (a guide's revisionid is its id). */
  guides: number;
  /** Titles the courses are named after (the leaf categories). */
  titles: readonly string[];
  /** A fresh timestamp, in order. */
  tick(): number;
  /** Now (seconds): due dates before it are overdue, as the expiry run would have marked them. */
  now: number;
}

const DAY = 86_400;

export function courseCount(users: number): number {
  return Math.max(4, Math.round(users / 8));
}

export function workforceRows(o: WorkforceInput): WorkforceRows {
  const { r } = o;
  const out: WorkforceRows = { courses: [], course_stages: [], course_assignments: [], course_assignees: [], course_stage_completions: [], course_stage_statuses: [], skills_supervisor_ratings: [], work_log: [] };
  let stageid = 0, assignmentid = 0, assigneeid = 0, completionid = 0, entryid = 0;
  /** The guides of the courses assigned to each team (for its lead's ratings). */
  const teamGuides = new Map<number, Set<number>>();
  const nCourses = courseCount(o.users);
  for (let courseid = 1; courseid <= nCourses; courseid++) {
    const created = o.tick();
    const round = Math.floor((courseid - 1) / o.titles.length);
    const title = `Training: ${o.titles[(courseid - 1) % o.titles.length]}${round ? ` (${round + 1})` : ''}`;
    const stages = Array.from({ length: r.int(3, 5) }, (_, position) => {
      stageid++;
      const docid = r.int(1, o.guides);
      out.course_stages.push([stageid, courseid, position, 'guide', docid, position === 0 ? 'major' : null]);
      return { stageid, docid };
    });
    // The earliest assignment reaching each user, and its date and due date.
    const reached = new Map<number, { assignmentid: number; due: number }>();
    const teamids = new Set<number>();
    for (let want = Math.min(o.teams, r.int(2, 4)); teamids.size < want;) teamids.add(r.int(1, o.teams));
    for (const teamid of teamids) {
      assignmentid++;
      out.course_assignments.push([assignmentid, courseid, null, teamid, o.leadOf.get(teamid) ?? 1, 30 * DAY, created]);
      for (const u of o.membersOf.get(teamid) ?? []) if (!reached.has(u)) reached.set(u, { assignmentid, due: created + 30 * DAY });
      const guides = teamGuides.get(teamid) ?? new Set<number>();
      for (const s of stages) guides.add(s.docid);
      teamGuides.set(teamid, guides);
    }
    if (r.next() < 0.2) {
      for (let i = r.int(1, 5); i > 0; i--) {
        const userid = r.int(1, o.users);
        assignmentid++;
        out.course_assignments.push([assignmentid, courseid, userid, null, 1, 14 * DAY, created]);
        if (!reached.has(userid)) reached.set(userid, { assignmentid, due: created + 14 * DAY });
      }
    }
    let done = 0;
    for (const [userid, a] of reached) {
      const k = r.int(0, stages.length);
      let last = created;
      for (let i = 0; i < k; i++) {
        completionid++;
        last += r.int(3600, 5 * DAY);
        const { stageid: sid, docid } = stages[i];
        out.course_stage_completions.push([completionid, sid, courseid, userid, 'guide', docid, docid, 'explicit', last - 600, last]);
        out.course_stage_statuses.push([sid, userid, courseid, 'completed', completionid, last]);
        if (r.next() < 1 / 3) {
          entryid++;
          out.work_log.push([entryid, docid, 'en', docid, userid, userid, 'complete', '', last - 900, last, last, last, 900]);
        }
      }
      const total = stages.length;
      const status = k === total ? 2 : k > 0 ? 1 : 0;
      if (status === 2) done++;
      const overdue = status !== 2 && a.due <= o.now ? 1 : 0;
      const nextCheck = status !== 2 && !overdue ? a.due : null;
      assigneeid++;
      out.course_assignees.push([assigneeid, courseid, userid, a.assignmentid, o.usernameLower(userid), status, total, k, Math.floor((k * 10_000) / total), created, a.due, status === 2 ? last : null, overdue, nextCheck]);
    }
    out.courses.push([courseid, 'en', title, title.toLowerCase(), `The ${title} course.`, created, created, stages.length, reached.size, reached.size ? Math.floor((done * 100) / reached.size) : 0]);
  }
  for (const [teamid, guides] of teamGuides) {
    const lead = o.leadOf.get(teamid);
    if (lead === undefined) continue;
    for (const userid of o.membersOf.get(teamid) ?? []) {
      if (userid === lead) continue;
      for (const docid of guides) if (r.next() < 0.2) out.skills_supervisor_ratings.push([userid, 'guide', docid, r.int(0, 4) / 4, lead, o.tick()]);
    }
  }
  return out;
}
