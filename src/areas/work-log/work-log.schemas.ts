import { Type, type Static } from '@sinclair/typebox';
import { Id, Nullable, OffsetLimit, Order, StringEnum, Timestamp } from '../../http/schemas.js';
import { LangidString } from '../comments/comments.schemas.js';

export const STATUSES = ['in_progress', 'paused', 'suspended', 'finished', 'cancelled'] as const;
export type WorkLogStatus = (typeof STATUSES)[number];

export const StatusParam = StringEnum(STATUSES, { description: 'in_progress, paused, suspended, finished or cancelled.' });

export const WorkLogStep = Type.Object({
  stepid: Type.Integer(),
  checked: Type.Boolean({ description: 'The step\'s checkmark.' }),
  value: Nullable(Type.String({ description: 'A value recorded on the step (a reading, a serial number...).' })),
  notes: Type.String(),
  modified_date: Timestamp,
  userid_modified: Nullable(Type.Integer()),
});

/** The work log entry record (the specification does not show its fields: this is the design). */
export const WorkLogEntry = Type.Object({
  entryid: Type.Integer(),
  guideid: Type.Integer(),
  langid: Type.String(),
  revisionid: Type.Integer({ description: 'The guide revision performed.' }),
  guide_title: Type.String({ description: 'The guide\'s current title in that language (empty when the guide is gone).' }),
  userid: Type.Integer({ description: 'The user the entry is assigned to: who performs it now.' }),
  username: Type.String(),
  userid_created: Nullable(Type.Integer({ description: 'Who started the entry.' })),
  status: Type.String({ description: 'in_progress, paused, suspended (left for someone to resume or assume), finished or cancelled.' }),
  notes: Type.String(),
  start_date: Timestamp,
  end_date: Nullable(Type.Integer({ description: 'When it was finished or cancelled.' })),
  status_date: Type.Integer({ description: 'When the status last changed.' }),
  modified_date: Timestamp,
  duration: Type.Integer({ description: 'Seconds spent in progress (pauses and suspensions left out), up to now for an entry in progress.' }),
  step_data: Type.Array(WorkLogStep, { description: 'What was recorded per step, by stepid; steps with nothing recorded are left out.' }),
}, { description: 'A work log entry: a user performing a guide revision. Statuses: in_progress -> paused (pause) -> in_progress (resume); in_progress or paused -> suspended (suspend: left for someone else); suspended -> in_progress (resume by its assignee, or assume by another user, who becomes the assignee); in_progress or paused -> finished (finish); in_progress, paused or suspended -> cancelled (cancel). finished and cancelled are final.' });
export type WorkLogEntry = Static<typeof WorkLogEntry>;

export const WorkLogCreate = Type.Object({
  guideid: Id(),
  langid: Type.Optional(LangidString),
  revisionid: Type.Optional(Id({ description: 'A kept revision of the guide in that language; default its current one.' })),
  userid: Type.Optional(Id({ description: 'Assign the entry to this user (Moderators and Admins); default the caller.' })),
  notes: Type.Optional(Type.String({ maxLength: 5000 })),
}, { additionalProperties: false });

export const TransitionBody = Type.Object({
  notes: Type.Optional(Type.String({ maxLength: 5000, description: 'Replaces the entry\'s notes.' })),
}, { additionalProperties: false });

export const StepDataInput = Type.Object({
  stepid: Id(),
  checked: Type.Optional(Type.Boolean({ default: false })),
  value: Type.Optional(Nullable(Type.String({ maxLength: 1000 }))),
  notes: Type.Optional(Type.String({ maxLength: 5000 })),
}, { additionalProperties: false });

export const StepDataPut = Type.Object({
  steps: Type.Array(StepDataInput, { maxItems: 500, description: 'Each step\'s record replaces the stored one (fields left out: unchecked, no value, no notes; such an empty record removes the step\'s data). Steps not listed keep theirs.' }),
}, { additionalProperties: false });
export type StepDataPut = Static<typeof StepDataPut>;

export const WorkLogListQuery = Type.Object({
  userid: Type.Optional(Id({ description: 'Entries assigned to this user.' })),
  guideid: Type.Optional(Id()),
  status: Type.Optional(StatusParam),
  order: Type.Optional(Order),
  ...OffsetLimit,
});

export const SuspendedQuery = Type.Object({
  langid: Type.Optional(LangidString),
  ...OffsetLimit,
});
