// Schemas of the course stage sign-offs area.
import { Type, type Static } from '@sinclair/typebox';
import { Id, ImageObject, Nullable, StringEnum, Timestamp } from '../../http/schemas.js';

const Flag = Type.Integer({ minimum: 0, maximum: 1, description: '0 or 1.' });

export const SignoffTeam = Type.Object({ teamid: Type.Integer(), name: Type.String(), image: Nullable(ImageObject) });

/** A stage's sign-off assessment with the trainee's latest request on it (request fields null when there is none). */
export const Signoff = Type.Object({
  stage_assessmentid: Type.Integer(),
  course_stageid: Type.Integer(),
  assessmenttype: Type.Literal('signoff'),
  assessmentid: Type.Integer({ description: 'The same as stage_assessmentid.' }),
  skills_points_possible: Nullable(Type.Integer()),
  quiz_passing_score: Nullable(Type.Integer()),
  teamid_signer: Nullable(Type.Integer()),
  signoffTeam: Nullable(SignoffTeam),
  signoff_requestid: Nullable(Type.Integer()),
  is_cancelled: Nullable(Flag),
  userid_requestor: Nullable(Type.Integer({ description: 'The trainee.' })),
  userid_requestee: Nullable(Type.Integer({ description: 'The trainer who responded (or the one asked).' })),
  work_log_entryid: Nullable(Type.Integer()),
  response_value: Nullable(StringEnum(['pass', 'fail'] as const)),
  response_feedback: Nullable(Type.String()),
  signer_name: Nullable(Type.String({ description: 'Extension: the responding trainer\'s printed name, their display name when they responded (null until answered).' })),
  meaning: Nullable(Type.String({ description: 'Extension: what the response attests, as the audit log records it: `passed` or `failed`, and the course stage, e.g. `passed: course stage 12` (null until answered). The time is `completed_at`.' })),
  response_acknowledged: Nullable(Flag),
  created_at: Nullable(Timestamp),
  completed_at: Nullable(Timestamp),
  acknowledged_at: Nullable(Timestamp),
  response_type: Nullable(StringEnum(['direct', 'over_the_shoulder'] as const)),
  requestee_avatar: Nullable(ImageObject),
});
export type Signoff = Static<typeof Signoff>;

/** A sign-off request with the trainee and the document, for the lists. */
export const SignoffRequest = Type.Object({
  ...Signoff.properties,
  signoff_requestid: Type.Integer(),
  wikiid: Type.Integer({ description: 'The course.' }),
  doctype: Type.String(),
  docid: Type.Integer(),
  doc_title: Type.String(),
  requestor_name: Type.String(),
  requestee_name: Nullable(Type.String()),
});
export type SignoffRequest = Static<typeof SignoffRequest>;

export const Signer = Type.Object({ userid: Type.Integer(), username: Type.String(), image: Nullable(ImageObject) });

export const RequestBody = Type.Object({
  stage_assessmentid: Id(),
  userid_requestee: Type.Optional(Id({ description: 'The trainer asked (a signer); default: any signer.' })),
  work_log_entryid: Type.Optional(Id({ description: 'The trainee\'s work log entry on the guide that the sign-off refers to.' })),
});
export const ResponseBody = Type.Object({
  signoff_requestid: Id(),
  response_value: StringEnum(['pass', 'fail'] as const),
  response_feedback: Type.String({ maxLength: 5000, description: 'Required (not blank).' }),
  work_log_entryid: Type.Optional(Id({ description: 'The work log entry watched, when the request named none.' })),
  signoff_token: Type.Optional(Type.String({ minLength: 20, maxLength: 200, description: 'Over the shoulder: the token initializeViaPassword answered; the response is then in that trainer\'s name.' })),
});
export const SignersBody = Type.Object({ search: Type.Optional(Type.String({ maxLength: 100, description: 'Matches any part of the username.' })) });
export const PasswordBody = Type.Object({
  login: Type.String({ minLength: 1, maxLength: 254, description: 'The trainer\'s e-mail address or unique username.' }),
  password: Type.String({ maxLength: 200 }),
});
export const SignoffToken = Type.Object({
  signoff_token: Type.String({ description: 'Single use; send it as `signoff_token` in PATCH /courses/stage-sign-offs/responses.' }),
  signoff_requestid: Type.Integer(),
  userid_signer: Type.Integer(),
  expires_at: Timestamp,
});
export const RequestParam = Type.Object({ signoff_requestid: Id() });
export const AssessmentParam = Type.Object({ stage_assessmentid: Id() });
export const UserParam = Type.Object({ userid: Id() });
