// Response records of the sign-offs area, for a whole page in a fixed number of queries.
import type { Config } from '../../config.js';
import { loadImageObjects } from '../media/image-object.js';
import type { Signoff, SignoffRequest } from './signoffs.schemas.js';
import type { Db, RequestRow } from './signoffs.queries.js';

export interface StageAssessment {
  course_stageid: number;
  stage_assessmentid: number | null;
  teamid_signer: number | null;
  quiz_passing_score: number | null;
  skills_points_possible: number | null;
}

/**
 * What a sign-off response attests (its record's `meaning`, and its audit entry's): passed
 * or failed, and the course stage signed off. Derived from the response and its stage, so
 * responding sends nothing more.
 */
export function signoffMeaning(value: string, r: Pick<RequestRow, 'course_stageid'>): string {
  return `${value === 'pass' ? 'passed' : 'failed'}: course stage ${r.course_stageid}`;
}

/** Teams and users the records name, loaded once. */
async function context(db: Db, config: Config, teamids: Array<number | null>, userids: Array<number | null>) {
  const tids = [...new Set(teamids.filter((x): x is number => x !== null))];
  const uids = [...new Set(userids.filter((x): x is number => x !== null))];
  const teams = tids.length ? await db.selectFrom('teams').select(['teamid', 'name', 'imageid']).where('teamid', 'in', tids).execute() : [];
  const users = uids.length ? await db.selectFrom('users').select(['userid', 'username', 'imageid']).where('userid', 'in', uids).execute() : [];
  const images = await loadImageObjects(db, config, [...teams.map((t) => t.imageid), ...users.map((u) => u.imageid)]);
  return {
    team: (id: number | null) => {
      const t = teams.find((x) => x.teamid === id);
      return t ? { teamid: t.teamid, name: t.name, image: (t.imageid !== null && images.get(t.imageid)) || null } : null;
    },
    user: (id: number | null) => users.find((u) => u.userid === id),
    avatar: (id: number | null) => {
      const u = users.find((x) => x.userid === id);
      return (u?.imageid != null && images.get(u.imageid)) || null;
    },
  };
}
type Context = Awaited<ReturnType<typeof context>>;

function signoff(ctx: Context, stage: StageAssessment, r: RequestRow | undefined): Signoff {
  const assessmentid = stage.stage_assessmentid ?? 0;
  return {
    stage_assessmentid: assessmentid,
    course_stageid: stage.course_stageid,
    assessmenttype: 'signoff',
    assessmentid,
    skills_points_possible: stage.skills_points_possible,
    quiz_passing_score: stage.quiz_passing_score,
    teamid_signer: stage.teamid_signer,
    signoffTeam: ctx.team(stage.teamid_signer),
    signoff_requestid: r?.signoff_requestid ?? null,
    is_cancelled: r ? r.is_cancelled : null,
    userid_requestor: r?.userid_requestor ?? null,
    userid_requestee: r?.userid_requestee ?? null,
    work_log_entryid: r?.work_log_entryid ?? null,
    response_value: (r?.response_value as 'pass' | 'fail' | null | undefined) ?? null,
    response_feedback: r?.response_feedback ?? null,
    signer_name: r?.response_value != null ? r.signer_name ?? '' : null,
    meaning: r?.response_value != null ? signoffMeaning(r.response_value, r) : null,
    response_acknowledged: r ? r.response_acknowledged : null,
    created_at: r ? Number(r.created_at) : null,
    completed_at: r?.completed_at != null ? Number(r.completed_at) : null,
    acknowledged_at: r?.acknowledged_at != null ? Number(r.acknowledged_at) : null,
    response_type: (r?.response_type as 'direct' | 'over_the_shoulder' | null | undefined) ?? null,
    requestee_avatar: r ? ctx.avatar(r.userid_requestee) : null,
  };
}

/** The sign-off field of stages (the assignee view): each stage's assessment with the trainee's latest request on it. */
export async function signoffRecords(db: Db, config: Config, items: Array<{ stage: StageAssessment; request: RequestRow | undefined }>): Promise<Signoff[]> {
  const ctx = await context(db, config, items.map((i) => i.stage.teamid_signer), items.map((i) => i.request?.userid_requestee ?? null));
  return items.map((i) => signoff(ctx, i.stage, i.request));
}

/** Request records with the trainee, the trainer and the document's title. */
export async function requestRecords(db: Db, config: Config, rows: RequestRow[]): Promise<SignoffRequest[]> {
  if (!rows.length) return [];
  const stageids = [...new Set(rows.map((r) => r.course_stageid))];
  const stages = await db.selectFrom('course_stages').select(['course_stageid', 'stage_assessmentid', 'teamid_signer', 'quiz_passing_score', 'skills_points_possible'])
    .where('course_stageid', 'in', stageids).execute();
  const ctx = await context(db, config, rows.map((r) => r.teamid_signer), rows.flatMap((r) => [r.userid_requestor, r.userid_requestee]));
  const guideids = [...new Set(rows.filter((r) => r.doctype === 'guide').map((r) => r.docid))];
  const wikiids = [...new Set(rows.filter((r) => r.doctype === 'wiki').map((r) => r.docid))];
  const guides = guideids.length ? await db.selectFrom('guides').select(['guideid', 'langid', 'title']).where('guideid', 'in', guideids).orderBy('langid').execute() : [];
  const wikis = wikiids.length ? await db.selectFrom('wikis').select(['wikiid', 'title', 'display_title']).where('wikiid', 'in', wikiids).execute() : [];
  const title = (r: RequestRow) => {
    if (r.doctype === 'guide') return (guides.find((g) => g.guideid === r.docid && g.langid === config.languages[0]) ?? guides.find((g) => g.guideid === r.docid))?.title ?? '';
    const w = wikis.find((x) => x.wikiid === r.docid);
    return w ? w.display_title || w.title : '';
  };
  return rows.map((r) => {
    const st = stages.find((s) => s.course_stageid === r.course_stageid);
    const stage: StageAssessment = st ? { ...st, teamid_signer: r.teamid_signer } : { course_stageid: r.course_stageid, stage_assessmentid: r.stage_assessmentid, teamid_signer: r.teamid_signer, quiz_passing_score: null, skills_points_possible: null };
    return {
      ...signoff(ctx, { ...stage, stage_assessmentid: r.stage_assessmentid }, r),
      signoff_requestid: r.signoff_requestid,
      wikiid: r.wikiid,
      doctype: r.doctype,
      docid: r.docid,
      doc_title: title(r),
      requestor_name: ctx.user(r.userid_requestor)?.username ?? '',
      requestee_name: ctx.user(r.userid_requestee)?.username ?? null,
    };
  });
}
