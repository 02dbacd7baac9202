// Response records of the approvals area, built for a whole page with a fixed number of
// batched queries (stages, people, teams, counts; requests: their stages, signatures,
// releases, guides and processes).
import type { Kysely } from 'kysely';
import type { Static } from '@sinclair/typebox';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import type { AuthUser } from '../../http/auth.js';
import { toBool } from '../../db/helpers.js';
import { loadUserSummaries } from '../users/users.queries.js';
import { toTeamSummaries } from '../teams/teams.queries.js';
import { loadImageObjects } from '../media/image-object.js';
import { releaseRecords } from '../guides/guides.releases.js';
import type { UserSummary } from '../users/users.schemas.js';
import type { ApprovalProcess, ApprovalProcessDetail, ApprovalRequest, ApprovalRequestStage } from './approvals.schemas.js';
import { activeStages, candidatesOf, currentDefault, requestStages, stagePeople, type ProcessRow, type RequestRow, type StageRow, type RequestStageRow, type StagePeople } from './approvals.queries.js';
import { requestReadable } from './approvals.access.js';
import { satisfiable, type Demand } from './approvals.satisfiable.js';

type Db = Kysely<Database>;
type ProcessRecord = Static<typeof ApprovalProcess>;
type RequestRecord = Static<typeof ApprovalRequest>;

export const requestHref = (config: Config, id: number) => `${config.publicUrl}/api/2.0/approvals/request/${id}`;

/**
 * What a signature attests (its record's `meaning`, and its audit entry's): approved or
 * rejected, and the stage signed (stages have no names of their own: their place, and who
 * they ask). Derived from the signature and its stage, so signing requests send nothing more.
 */
export function signatureMeaning(status: string, stage: Pick<RequestStageRow, 'orderby' | 'userid' | 'teamid'>): string {
  const who = stage.userid != null ? `user ${stage.userid}` : `team ${stage.teamid}`;
  return `${status === 'approve' ? 'approved' : 'rejected'}: stage ${stage.orderby + 1} (${who})`;
}

/** Strips the user-list extras (enabled, banned) a summary does not show. */
function summary(u: UserSummary | undefined): UserSummary | undefined {
  if (!u) return undefined;
  return { userid: u.userid, username: u.username, unique_username: u.unique_username, join_date: u.join_date, image: u.image, reputation: u.reputation, url: u.url, teams: u.teams, privileges: u.privileges };
}

async function teamsById(db: Db, config: Config, teamids: number[]) {
  const ids = [...new Set(teamids)];
  if (ids.length === 0) return new Map<number, Awaited<ReturnType<typeof toTeamSummaries>>[number]>();
  const rows = await db.selectFrom('teams').selectAll().where('teamid', 'in', ids).execute();
  return new Map((await toTeamSummaries(db, config, rows)).map((t) => [t.teamid, t]));
}

/** Demands of a process's stages when nothing is signed yet. */
export function processDemands(stages: Array<Pick<StageRow, 'userid' | 'teamid' | 'num_required'>>, people: StagePeople): Demand[] {
  return stages.map((s) => ({ candidates: candidatesOf(s, people), needed: s.userid != null ? 1 : s.num_required }));
}

/**
 * What the remaining stages of a pending request still need: the current one its missing
 * approvals, from candidates who have not signed it (nor, without repeated signatures,
 * an earlier stage); the later ones all of theirs.
 */
export function requestDemands(request: Pick<RequestRow, 'allow_repeated_signatures' | 'current_stage'>, stages: RequestStageRow[], signatures: Array<{ approval_request_stageid: number; userid: number; status: string }>, people: StagePeople): Demand[] {
  const signedAnywhere = new Set(signatures.map((s) => s.userid));
  return stages.filter((s) => s.orderby >= request.current_stage && (s.status === 'pending' || s.status === 'waiting')).map((s) => {
    const here = signatures.filter((x) => x.approval_request_stageid === s.approval_request_stageid);
    const excluded = toBool(request.allow_repeated_signatures) ? new Set(here.map((x) => x.userid)) : signedAnywhere;
    const needed = (s.userid != null ? 1 : s.num_required) - here.filter((x) => x.status === 'approve').length;
    return { candidates: candidatesOf(s, people).filter((u) => !excluded.has(u)), needed: Math.max(0, needed) };
  });
}

/** Process records (the list shape, with counts) in the order of `rows`. */
export async function processRecords(db: Db, config: Config, rows: ProcessRow[]): Promise<ProcessRecord[]> {
  const ids = rows.map((r) => r.approval_processid);
  const stages = await activeStages(db, ids);
  const all = [...stages.values()].flat();
  const [people, users, teams, counts, guideCounts, def] = await Promise.all([
    stagePeople(db, all),
    loadUserSummaries(db, config, all.map((s) => s.userid)),
    teamsById(db, config, all.flatMap((s) => (s.teamid != null ? [s.teamid] : []))),
    ids.length
      ? db.selectFrom('approval_requests').select((eb) => ['approval_processid', eb.fn.countAll<number>().as('n')]).where('approval_processid', 'in', ids).groupBy('approval_processid').execute()
      : Promise.resolve([]),
    ids.length
      ? db.selectFrom((eb) => eb.selectFrom('approval_requests').select(['approval_processid', 'guideid', 'langid']).distinct().where('approval_processid', 'in', ids).as('d'))
        .select((eb) => ['d.approval_processid', eb.fn.countAll<number>().as('g')]).groupBy('d.approval_processid').execute()
      : Promise.resolve([]),
    currentDefault(db),
  ]);
  const countOf = new Map(counts.map((c) => [c.approval_processid, Number(c.n)]));
  const guidesOf = new Map(guideCounts.map((c) => [c.approval_processid, Number(c.g)]));
  return rows.map((r) => {
    const list = stages.get(r.approval_processid) ?? [];
    const demands = processDemands(list, people);
    return {
      approval_processid: r.approval_processid,
      name: r.name,
      allow_repeated_signatures: toBool(r.allow_repeated_signatures),
      status: r.status,
      is_satisfiable: list.length > 0 && satisfiable(demands, toBool(r.allow_repeated_signatures)),
      is_default: def === r.approval_processid,
      revisionid: r.revisionid,
      stages: list.map((s, i) => ({
        approval_process_stageid: s.approval_process_stageid,
        ...(s.userid != null ? { user: summary(users.get(s.userid)) } : {}),
        ...(s.teamid != null ? { team: teams.get(s.teamid), num_required: s.num_required } : {}),
        is_satisfiable: demands[i].candidates.length >= demands[i].needed,
      })),
      num_guides: guidesOf.get(r.approval_processid) ?? 0,
      num_requests: countOf.get(r.approval_processid) ?? 0,
    };
  });
}

/** The detail shape: with webhooks_enabled, the guides released under it, and its pending requests the caller reads. */
export async function processDetail(db: Db, config: Config, row: ProcessRow, user: AuthUser): Promise<Static<typeof ApprovalProcessDetail>> {
  const [record] = await processRecords(db, config, [row]);
  const guides = await db.selectFrom('approval_requests').select(['guideid', 'langid']).distinct().where('approval_processid', '=', row.approval_processid)
    .orderBy('guideid').orderBy('langid').limit(1000).execute();
  const pending = await db.selectFrom('approval_requests as r').selectAll('r').where('r.approval_processid', '=', row.approval_processid).where('r.status', '=', 'pending')
    .where(requestReadable(user)).orderBy('r.approval_requestid').limit(200).execute();
  return {
    ...record,
    webhooks_enabled: row.webhooks_enabled == null ? null : toBool(row.webhooks_enabled),
    guides,
    requests: await requestRecords(db, config, pending),
  };
}

/** Request records in the order of `rows`. */
export async function requestRecords(db: Db, config: Config, rows: RequestRow[]): Promise<RequestRecord[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((r) => r.approval_requestid);
  const stages = await requestStages(db, ids);
  const allStages = [...stages.values()].flat();
  const signatures = await db.selectFrom('approval_signatures').selectAll().where('approval_requestid', 'in', ids).orderBy('approval_request_stage_signatureid').execute();
  const releaseRows = await db.selectFrom('guide_releases').selectAll().where('releaseid', 'in', rows.map((r) => r.releaseid)).execute();
  const guideRows = await db.selectFrom('guides').select(['guideid', 'langid', 'title', 'imageid', 'step_imageid']).where('guideid', 'in', rows.map((r) => r.guideid)).execute();
  const processRows = await db.selectFrom('approval_processes').selectAll().where('approval_processid', 'in', rows.map((r) => r.approval_processid)).execute();
  const [people, users, teams, releases, processes, images] = await Promise.all([
    stagePeople(db, allStages),
    loadUserSummaries(db, config, [...allStages.map((s) => s.userid), ...signatures.map((s) => s.userid)]),
    teamsById(db, config, allStages.flatMap((s) => (s.teamid != null ? [s.teamid] : []))),
    releaseRecords(db, config, releaseRows),
    processRecords(db, config, processRows),
    loadImageObjects(db, config, guideRows.map((g) => g.imageid ?? g.step_imageid)),
  ]);
  const releaseOf = new Map(releases.map((r) => [r.releaseid, r]));
  const processOf = new Map(processes.map((p) => [p.approval_processid, p]));
  const guideOf = new Map(guideRows.map((g) => [`${g.guideid}:${g.langid}`, g]));
  return rows.map((r) => {
    const list = stages.get(r.approval_requestid) ?? [];
    const sigs = signatures.filter((s) => s.approval_requestid === r.approval_requestid);
    const demands = r.status === 'pending' ? requestDemands(r, list, sigs, people) : [];
    const demandOf = new Map(list.filter((s) => s.orderby >= r.current_stage && (s.status === 'pending' || s.status === 'waiting')).map((s, i) => [s.approval_request_stageid, demands[i]]));
    const g = guideOf.get(`${r.guideid}:${r.langid}`);
    const img = g ? images.get((g.imageid ?? g.step_imageid) as number) : undefined;
    const stageRecords: Array<Static<typeof ApprovalRequestStage>> = list.map((s) => {
      const d = demandOf.get(s.approval_request_stageid);
      return {
        approval_process_stageid: s.approval_process_stageid,
        user: s.userid != null ? summary(users.get(s.userid)) ?? null : null,
        ...(s.teamid != null ? { team: teams.get(s.teamid) ?? null } : {}),
        num_required: s.userid != null ? 1 : s.num_required,
        status: s.status,
        signatures: sigs.filter((x) => x.approval_request_stageid === s.approval_request_stageid).map((x) => ({
          approval_request_stage_signatureid: x.approval_request_stage_signatureid,
          user: summary(users.get(x.userid)) ?? null,
          signer_name: x.signer_name,
          status: x.status,
          meaning: signatureMeaning(x.status, s),
          sign_date: x.sign_date,
          notes: x.notes,
          revisionid: x.revisionid,
        })),
        approved: s.status === 'complete',
        rejected: s.status === 'rejected',
        is_satisfiable: d ? d.candidates.length >= d.needed : s.status === 'complete',
      };
    });
    return {
      approval_requestid: r.approval_requestid,
      release: releaseOf.get(r.releaseid)!,
      guide: { guideid: r.guideid, title: g?.title ?? '', langid: r.langid, img_src: img ? img.standard ?? img.original ?? null : null },
      process: processOf.get(r.approval_processid)!,
      status: r.status,
      stages: stageRecords,
      is_satisfiable: r.status === 'pending' ? satisfiable(demands, toBool(r.allow_repeated_signatures)) : r.status === 'approved',
      init_date: r.init_date,
      end_date: r.end_date,
      href: requestHref(config, r.approval_requestid),
    };
  });
}
