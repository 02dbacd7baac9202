// Schemas of the approvals area: the specification's approval process, stage, request,
// request stage and signature records (with the extensions marked), and the bodies.
import { Type } from '@sinclair/typebox';
import { Nullable, OffsetLimit, Order, StringEnum, Timestamp, Id } from '../../http/schemas.js';
import { UserSummary } from '../users/users.schemas.js';
import { TeamSummary } from '../teams/teams.schemas.js';
import { Release } from '../guides/guides.schemas.js';

export const MAX_STAGES = 10;
export const MAX_NUM_REQUIRED = 100;

export const ApprovalStage = Type.Object({
  approval_process_stageid: Type.Integer(),
  user: Type.Optional(UserSummary),
  team: Type.Optional(TeamSummary),
  num_required: Type.Optional(Type.Integer({ description: 'Team stages: the number of distinct members who must sign.' })),
  is_satisfiable: Type.Boolean({ description: 'A user stage: its user exists and is enabled; a team stage: the team has at least num_required enabled members.' }),
});

const processFields = {
  approval_processid: Type.Integer(),
  name: Type.String(),
  allow_repeated_signatures: Type.Boolean({ description: 'Whether one user may sign several stages of the same request.' }),
  status: Type.String({ description: 'enabled.' }),
  is_satisfiable: Type.Boolean({ description: 'Every stage can be signed, and (without allow_repeated_signatures) by enough distinct people for all stages.' }),
  is_default: Type.Boolean({ description: 'The default process for guides created from now on.' }),
  revisionid: Type.Integer({ description: 'Extension: the process is versioned; PATCH takes it.' }),
  stages: Type.Array(ApprovalStage),
};

/** The process in lists, searches and inside a request. */
export const ApprovalProcess = Type.Object({
  ...processFields,
  num_guides: Type.Integer({ description: 'Guides (in one language) that had a release under this process.' }),
  num_requests: Type.Integer({ description: 'Requests made under this process.' }),
});

export const ApprovalSignature = Type.Object({
  approval_request_stage_signatureid: Type.Integer(),
  user: Nullable(UserSummary),
  signer_name: Type.String({ description: 'Extension: the signer\'s printed name, their display name when they signed (a later rename does not change it).' }),
  status: Type.String({ description: 'approve or reject.' }),
  meaning: Type.String({ description: 'Extension: what the signature attests, as the audit log records it: `approved` or `rejected`, and the stage signed (its place and the user or team it asks), e.g. `approved: stage 1 (team 3)`.' }),
  sign_date: Timestamp,
  notes: Type.String(),
  revisionid: Type.Integer({ description: 'Extension: the guide revision signed.' }),
});

export const ApprovalRequestStage = Type.Object({
  approval_process_stageid: Type.Integer(),
  user: Nullable(UserSummary),
  team: Type.Optional(Nullable(TeamSummary)),
  num_required: Type.Integer({ description: 'Extension: signatures needed (1 for a user stage).' }),
  status: Type.String({ description: 'waiting, pending (the current stage), complete, rejected or cancelled.' }),
  signatures: Type.Array(ApprovalSignature),
  approved: Type.Boolean(),
  rejected: Type.Boolean(),
  is_satisfiable: Type.Boolean({ description: 'Extension: the stage can still be signed by enough people.' }),
});

export const ApprovalRequestGuide = Type.Object({
  guideid: Type.Integer(),
  title: Type.String(),
  langid: Type.String(),
  img_src: Nullable(Type.String()),
});

export const ApprovalRequest = Type.Object({
  approval_requestid: Type.Integer(),
  release: Release,
  guide: ApprovalRequestGuide,
  process: ApprovalProcess,
  status: Type.String({ description: 'pending, approved, rejected or cancelled.' }),
  stages: Type.Array(ApprovalRequestStage),
  is_satisfiable: Type.Boolean({ description: 'Extension: the remaining stages can still be signed (a pending request that cannot stays open; an Admin may cancel it).' }),
  init_date: Timestamp,
  end_date: Nullable(Timestamp),
  href: Type.String(),
});

/** Detail and create responses. */
export const ApprovalProcessDetail = Type.Object({
  ...ApprovalProcess.properties,
  webhooks_enabled: Nullable(Type.Boolean()),
  guides: Type.Array(Type.Object({ guideid: Type.Integer(), langid: Type.String() })),
  requests: Type.Array(ApprovalRequest, { description: 'Pending requests of the process the caller may read.' }),
});

export const ProcessSearchResult = Type.Object({
  limit: Type.Integer(),
  offset: Type.Integer(),
  totalResults: Type.Integer(),
  moreResults: Type.Boolean(),
  search: Type.String(),
  results: Type.Array(ApprovalProcess),
});

export const StageInput = Type.Object({
  userid: Type.Optional(Id({ description: 'Only that user signs the stage.' })),
  teamid: Type.Optional(Id({ description: 'Members of the team sign the stage.' })),
  num_required: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_NUM_REQUIRED, description: 'Required with teamid: the number of distinct members who must sign.' })),
}, { additionalProperties: false });

const processBody = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  stages: Type.Array(StageInput, { minItems: 1, maxItems: MAX_STAGES }),
  allow_repeated_signatures: Type.Optional(Type.Boolean({ default: false })),
  is_default: Type.Optional(Type.Boolean({ description: 'The default for guides created from now on; existing guides are unaffected.' })),
  webhooks_enabled: Type.Optional(Nullable(Type.Boolean({ description: 'Approvals.* webhooks for this process; null: the site setting.' }))),
};
export const ProcessCreate = Type.Object(processBody, { additionalProperties: false });
export const ProcessPatch = Type.Object({
  ...processBody,
  name: Type.Optional(processBody.name),
  stages: Type.Optional(processBody.stages),
}, { additionalProperties: false, minProperties: 1 });

export const ProcessListQuery = Type.Object({ ...OffsetLimit, order: Type.Optional(Order) });
export const ProcessParam = Type.Object({ approval_processid: Id() });
export const RequestParam = Type.Object({ approval_requestid: Id() });
export const AttachParam = Type.Object({ wikiid: Id(), approval_processid: Id() });
export const WikiParam = Type.Object({ wikiid: Id() });

export const REQUEST_STATUSES = ['pending', 'approved', 'rejected', 'cancelled'] as const;
export const RequestListQuery = Type.Object({
  ...OffsetLimit,
  order: Type.Optional(Order),
  status: Type.Optional(StringEnum(REQUEST_STATUSES)),
  guideid: Type.Optional(Id()),
  waiting_on_me: Type.Optional(Type.Boolean({ description: 'Only pending requests whose current stage the caller may sign and has not signed.' })),
});

const signFields = {
  status: StringEnum(['approve', 'reject'] as const),
  notes: Type.Optional(Type.String({ maxLength: 10_000 })),
};
export const SignBody = Type.Object({ ...signFields, password: Type.String({ minLength: 1, maxLength: 200, description: 'The caller\'s password, re-entered: the signature.' }) }, { additionalProperties: false });
export const SignTokenBody = Type.Object({ ...signFields, token: Type.String({ minLength: 1, maxLength: 200, description: 'The single-use signing token mailed to the caller for this request.' }) }, { additionalProperties: false });
