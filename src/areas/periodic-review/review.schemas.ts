// Periodic review payloads. The specification names the endpoints only ("Fields of records
// for ... periodic reviews: not shown"); these records follow the style of the documented
// ones (ids named <thing>id, UNIX timestamps, user and team summaries) and are named in
// src/http/openapi.records.ts.
import { Type, type Static } from '@sinclair/typebox';
import { CaseInsensitiveEnum, Id, Nullable, OffsetLimit, StringEnum, Timestamp } from '../../http/schemas.js';
import { UserSummary } from '../users/users.schemas.js';
import { TeamSummary } from '../teams/teams.schemas.js';

export const DOCTYPES = ['guide', 'wiki'] as const;
export const RECURRENCES = ['yearly', 'interval'] as const;
export const REVIEW_KINDS = ['still_valid', 'change_request', 'reviewed_release'] as const;
export const STATUSES = ['scheduled', 'due', 'overdue'] as const;
/** Documents named in one request (create, add, remove). */
export const MAX_DOCUMENTS = 100;
export const MAX_REVIEWERS = 50;

export const Doctype = CaseInsensitiveEnum(DOCTYPES, { description: 'guide or wiki.' });

export const ReviewSchedule = Type.Object({
  prsid: Type.Integer(),
  name: Type.String(),
  recurrence: StringEnum(RECURRENCES, { description: 'yearly: on `month`/`day` every year; interval: every `interval_days` days after the last review.' }),
  month: Nullable(Type.Integer({ description: 'yearly: 1 to 12.' })),
  day: Nullable(Type.Integer({ description: 'yearly: day of the month.' })),
  interval_days: Nullable(Type.Integer({ description: 'interval: days between reviews.' })),
  window_days: Type.Integer({ description: 'Days to complete a review once it is due; overdue after.' }),
  reviewers: Type.Object({ users: Type.Array(UserSummary), teams: Type.Array(TeamSummary) }),
  creator: Nullable(Type.Integer({ description: 'userid of who created it.' })),
  created_date: Timestamp,
  num_documents: Type.Integer(),
}, { description: 'A periodic review schedule.' });

export const ReviewDocument = Type.Object({
  prdid: Type.Integer(),
  prsid: Type.Integer(),
  schedule_name: Type.String(),
  doctype: Doctype,
  docid: Type.Integer(),
  title: Type.String(),
  url: Type.String(),
  added_date: Timestamp,
  last_reviewed_date: Nullable(Timestamp),
  due_date: Timestamp,
  overdue_date: Timestamp,
  status: StringEnum(STATUSES, { description: 'scheduled (not yet due), due (within the completion window), overdue.' }),
  open_change_requests: Type.Integer(),
}, { description: 'A guide or wiki on a review schedule, with its next due date.' });

export const ReviewScheduleDetail = Type.Object({
  ...ReviewSchedule.properties,
  documents: Type.Array(ReviewDocument, { description: 'The documents the caller reads, by prdid, paged by `offset` and `limit`.' }),
}, { description: 'A periodic review schedule with (a page of) its documents.' });

export const Review = Type.Object({
  reviewid: Type.Integer(),
  doctype: Doctype,
  docid: Type.Integer(),
  title: Type.String(),
  prsid: Nullable(Type.Integer()),
  user: Nullable(UserSummary),
  kind: StringEnum(REVIEW_KINDS, { description: 'still_valid, change_request (with notes), or reviewed_release (a guide released with "reviewed": true).' }),
  notes: Type.String(),
  date: Timestamp,
  releaseid: Nullable(Type.Integer()),
  due_date: Nullable(Type.Integer({ description: 'The due date this review satisfied (null for a change request).' })),
  resolved_date: Nullable(Type.Integer({ description: 'Change requests: when a later review settled it; null while open.' })),
}, { description: 'A review of a document, or a change request.' });

export const DocumentSchedule = Type.Object({
  doctype: Doctype,
  docid: Type.Integer(),
  document: Nullable(ReviewDocument),
  schedule: Nullable(ReviewSchedule),
}, { description: 'The schedule of one document (both null when it is on none).' });

export const DocumentSearchResult = Type.Object({
  doctype: Doctype,
  docid: Type.Integer(),
  langid: Type.String(),
  title: Type.String(),
  url: Type.String(),
  document: Nullable(ReviewDocument),
}, { description: 'A guide or wiki matching a search, with its review document when it is on a schedule.' });

const DocRef = Type.Object({ doctype: Doctype, docid: Id() }, { additionalProperties: false });
export type DocRef = Static<typeof DocRef>;

export const ScheduleCreate = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  recurrence: StringEnum(RECURRENCES),
  month: Type.Optional(Type.Integer({ minimum: 1, maximum: 12, description: 'yearly: required.' })),
  day: Type.Optional(Type.Integer({ minimum: 1, maximum: 31, description: 'yearly: required; a day the month has in every year (not February 29).' })),
  interval_days: Type.Optional(Type.Integer({ minimum: 1, maximum: 3650, description: 'interval: required.' })),
  window_days: Type.Integer({ minimum: 1, maximum: 365 }),
  userids: Type.Optional(Type.Array(Id(), { maxItems: MAX_REVIEWERS, uniqueItems: true, description: 'Reviewing users.' })),
  teamids: Type.Optional(Type.Array(Id(), { maxItems: MAX_REVIEWERS, uniqueItems: true, description: 'Reviewing teams (any member reviews).' })),
  documents: Type.Optional(Type.Array(DocRef, { maxItems: MAX_DOCUMENTS, description: 'Documents to put on the schedule at once; each one the caller may edit.' })),
}, { additionalProperties: false });

export const DocumentsAdd = Type.Object({
  prsid: Id(),
  documents: Type.Array(DocRef, { minItems: 1, maxItems: MAX_DOCUMENTS }),
}, { additionalProperties: false, description: 'A document on another schedule moves to this one.' });

export const DocumentsRemove = Type.Object({
  prdids: Type.Array(Id(), { minItems: 1, maxItems: MAX_DOCUMENTS, uniqueItems: true }),
}, { additionalProperties: false });

export const ReviewCreate = Type.Object({
  doctype: Doctype,
  docid: Id(),
  status: StringEnum(['still_valid', 'change_request'] as const),
  notes: Type.Optional(Type.String({ maxLength: 5000, description: 'Required (not blank) for a change request.' })),
}, { additionalProperties: false });

export const PageQuery = Type.Object({ ...OffsetLimit });
export const DocumentsQuery = Type.Object({ ...OffsetLimit, status: Type.Optional(StringEnum(STATUSES)) });
export const RequestsQuery = Type.Object({ ...OffsetLimit, state: Type.Optional(StringEnum(['open', 'resolved', 'all'] as const, { default: 'open' })) });
