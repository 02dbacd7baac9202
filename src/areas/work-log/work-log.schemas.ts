import { Type, type Static } from '@sinclair/typebox';
import { Id, Nullable, OffsetLimit, Order, StringEnum, Timestamp } from '../../http/schemas.js';
import { LangidString } from '../comments/comments.schemas.js';

export const STATUSES = ['started', 'paused', 'suspended', 'complete', 'cancelled'] as const;
export type WorkLogStatus = (typeof STATUSES)[number];

export const StatusParam = StringEnum(STATUSES, { description: 'started, paused, suspended, complete or cancelled.' });

export const WorkData = Type.Object({
  label: Type.String({ description: 'The field\'s label in the revision performed.' }),
  value: Type.String({ description: 'Always a string: numbers as written, a checkbox "1" (checked) or "0".' }),
  field_revisionid: Type.Integer(),
  stepid: Type.Integer(),
  userid: Nullable(Type.Integer({ description: 'Who entered the value (an assumed entry shows who did which part).' })),
  modified_date: Timestamp,
});

export const Timing = Type.Object({
  timingid: Type.Integer(),
  stepid: Nullable(Type.Integer({ description: 'The step whose data closed the stretch; null while open, or when a pause, suspension or the end closed it.' })),
  userid: Nullable(Type.Integer({ description: 'Who spent it.' })),
  starttime: Timestamp,
  endtime: Nullable(Type.Integer({ description: 'null while open.' })),
});

/** The work log entry record, in the shape its clients use, with this server's additions. */
export const WorkLogEntry = Type.Object({
  entryid: Type.Integer(),
  guideid: Type.Integer(),
  userid: Type.Integer({ description: 'The user the entry is assigned to: who performs it now.' }),
  workorderid: Nullable(Type.String({ description: 'The client\'s work order (free text); null when none was given.' })),
  starttime: Timestamp,
  endtime: Nullable(Type.Integer({ description: 'When it was completed or cancelled.' })),
  max_form_revisionid: Type.Integer({ description: 'The highest field_revisionid of the guide revision performed: the form version the entry records against (0 when it has no fields).' }),
  guide_revisionid: Type.Integer({ description: 'The guide revision performed.' }),
  cancelled: Type.Integer({ description: '1 when cancelled, else 0.' }),
  duration: Type.Integer({ description: 'Seconds started (pauses and suspensions left out), up to now while started.' }),
  status: Type.String({ description: 'started, paused, suspended, complete or cancelled.' }),
  work_data: Type.Array(WorkData, { description: 'The values recorded, in the order of the steps and their fields; fields with no value are left out.' }),
  timingid: Nullable(Type.Integer({ description: 'The open timing (send it as `lasttimingid` with the next step data); null when none is open.' })),
  langid: Type.String(),
  guide_title: Type.String({ description: 'The guide\'s current title in that language (empty when the guide is gone).' }),
  username: Type.String(),
  userid_created: Nullable(Type.Integer({ description: 'Who started the entry.' })),
  notes: Type.String(),
  status_date: Type.Integer({ description: 'When the status last changed.' }),
  modified_date: Timestamp,
  timings: Type.Array(Timing, { description: 'Every stretch spent on the entry, oldest first, with who spent it.' }),
}, {
  description: 'A work log entry: a user performing a guide revision in one language. Statuses: started -> paused (pause) -> started (resume); started or paused -> suspended (suspend: left for someone else); suspended -> started (resume by its assignee, or assume by another user, who becomes the assignee); started or paused -> complete (finish); started, paused or suspended -> cancelled (cancel). complete and cancelled are final.',
});
export type WorkLogEntry = Static<typeof WorkLogEntry>;

export const WorkLogList = Type.Object({ results: Type.Array(WorkLogEntry) });

export const WorkLogCreate = Type.Object({
  guideid: Id(),
  workorderid: Type.Optional(Nullable(Type.String({ maxLength: 255, description: 'The client\'s work order (free text).' }))),
  join_code: Type.Optional(Nullable(Type.String({ maxLength: 255, description: 'Not supported: an empty value or null is ignored, any other is a 422 (to carry on another user\'s entry, suspend it and `assume` it).' }))),
  langid: Type.Optional(LangidString),
  revisionid: Type.Optional(Id({ description: 'A kept revision of the guide in that language; default its current one.' })),
  userid: Type.Optional(Id({ description: 'Assign the entry to this user (Moderators and Admins); default the caller.' })),
  notes: Type.Optional(Type.String({ maxLength: 5000 })),
}, { additionalProperties: false });

export const TransitionBody = Type.Object({
  notes: Type.Optional(Type.String({ maxLength: 5000, description: 'Replaces the entry\'s notes.' })),
}, { additionalProperties: false });

export const FieldValue = Nullable(Type.Union([Type.String({ maxLength: 10_000 }), Type.Number(), Type.Boolean()]));

export const StepDataPut = Type.Object({
  fields: Type.Record(Type.String(), FieldValue, {
    maxProperties: 500,
    description: 'Values by field_revisionid (fields of the guide revision performed): strings, numbers or booleans, stored as strings (true/false as "1"/"0"); null or "" removes a value.',
  }),
  lasttimingid: Type.Optional(Nullable(Id({ description: 'The entry\'s open timing: closes it (for the step of the fields sent) and opens the next.' }))),
}, { additionalProperties: false });
export type StepDataPut = Static<typeof StepDataPut>;

export const WorkLogListQuery = Type.Object({
  guideid: Type.Optional(Id()),
  userid: Type.Optional(Id({ description: 'Entries assigned to this user.' })),
  workorderid: Type.Optional(Type.String({ maxLength: 255 })),
  status: Type.Optional(StatusParam),
  langid: Type.Optional(LangidString),
  order: Type.Optional(Order),
  ...OffsetLimit,
});

export const SuspendedQuery = Type.Object({
  langid: Type.Optional(LangidString),
  ...OffsetLimit,
});
