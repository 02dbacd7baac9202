// Schemas of the quizzes area: bodies, parameters and the records it answers.
import { Type, type Static } from '@sinclair/typebox';
import { CaseInsensitiveEnum, Id, Nullable, OffsetLimit, StringEnum, Timestamp } from '../../http/schemas.js';
import { QUESTION_TYPES } from './quizzes.scoring.js';

export const QuizDoctype = CaseInsensitiveEnum(['guide', 'wiki'] as const, { description: 'guide or wiki.' });
export type QuizDoctype = Static<typeof QuizDoctype>;
const Flag = Type.Integer({ minimum: 0, maximum: 1, description: '0 or 1.' });

export const QuizElement = Type.Object({
  name: Type.String({ description: 'Unique within the quiz.' }),
  type: Type.String({ description: `One of ${QUESTION_TYPES.join(', ')}.` }),
  title: Type.Optional(Type.String()),
  choices: Type.Optional(Type.Array(Type.Unknown(), { description: 'Values, or {value, text}.' })),
  correctAnswer: Type.Optional(Type.Unknown({ description: 'Left out for learners until they passed or used up their attempts.' })),
}, { additionalProperties: true, description: 'A SurveyJS question; other SurveyJS properties are kept.' });

export const QuizJson = Type.Object({
  title: Type.Optional(Type.String()),
  elements: Type.Array(QuizElement),
}, { additionalProperties: true, description: 'SurveyJS JSON: a title and its elements (questions).' });

export const QuizDocument = Type.Object({ doctype: QuizDoctype, docid: Id() });

export const Quiz = Type.Object({
  quizid: Type.Integer(),
  quiz_revisionid: Type.Integer(),
  modified_by: Nullable(Type.Integer()),
  title: Type.String(),
  description: Type.String(),
  passing_score: Type.Integer({ description: 'Percentage needed to pass, 0 to 100.' }),
  deleted: Flag,
  date: Timestamp,
  quiz_json: QuizJson,
  enabled: Flag,
  nonMediaQuestionsCount: Type.Integer(),
  category: Type.String(),
  documents: Type.Array(QuizDocument, { description: 'The guides and wikis the quiz is attached to (and so the course stages on them).' }),
  answers_shown: Type.Boolean({ description: 'Whether quiz_json carries correctAnswer for the caller.' }),
});
export type Quiz = Static<typeof Quiz>;

export const QuizListEntry = Type.Object({
  quizid: Type.Integer(),
  quiz_title: Type.String(),
  guideid: Nullable(Type.Integer()),
  guide_title: Nullable(Type.String()),
  guide_release_version: Nullable(Type.String()),
  quizzes_submitted: Type.Integer(),
  category: Type.String(),
  quiz_last_released: Timestamp,
});

export const QuizCategory = Type.Object({ name: Type.String() });

export const QuizSession = Type.Object({
  quiz_sessionid: Type.Integer(),
  userid: Type.Integer(),
  quizid: Type.Integer(),
  quiz_revisionid: Type.Integer(),
  doctype: QuizDoctype,
  docid: Type.Integer(),
  langid: Type.String(),
  doc_revisionid: Type.Integer(),
  response_json: Type.String({ description: 'The answers (SurveyJS data) as JSON text.' }),
  init_date: Timestamp,
  end_date: Nullable(Timestamp),
  score: Nullable(Type.Number({ description: 'Percentage, 0 to 100.' })),
  passed: Nullable(Flag),
  cancelled: Flag,
  self_override: Type.Boolean({ description: 'Cancelled by an Admin\'s override on their own session (only Admins act on their own account).' }),
  last_modified: Timestamp,
});
export type QuizSession = Static<typeof QuizSession>;

export const QuizSessionEntry = Type.Object({ ...QuizSession.properties, quiz_title: Type.String(), username: Type.String() });

export const QuizSubmission = Type.Object({
  session: QuizSession,
  quiz: Quiz,
  results: Nullable(Type.Array(Type.Object({ name: Type.String(), correct: Type.Boolean() }), { description: 'Per scored question; null until submitted.' })),
  attempts_limit: Nullable(Type.Integer({ description: 'From the course stage assessment on the document; null: no limit.' })),
  attempts_used: Type.Integer(),
  attempts_remaining: Nullable(Type.Integer()),
});

export const ImportBody = Type.Object({
  quiz_json: Type.Unknown({ description: 'SurveyJS JSON {title, elements: [{name, type, title, choices?, correctAnswer}]}; validated element by element.' }),
  title: Type.Optional(Type.String({ maxLength: 255, description: 'Default: quiz_json.title.' })),
  description: Type.Optional(Type.String({ maxLength: 5000 })),
  passing_score: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, description: 'Percentage needed to pass. Default 70 (a new revision keeps the previous one).' })),
  category: Type.Optional(Type.String({ maxLength: 255 })),
  enabled: Type.Optional(Type.Boolean()),
  quizid: Type.Optional(Id({ description: 'Imports a new revision of this quiz.' })),
  quiz_revisionid: Type.Optional(Id({ description: 'With quizid: its current revision (409 otherwise).' })),
});

export const AttachGuideBody = Type.Object({ quizid: Id(), guideid: Id() });
export const AttachWikiBody = Type.Object({ quizid: Id(), wikiid: Id() });
export const DeleteBody = Type.Object({ quizids: Type.Array(Id(), { minItems: 1, maxItems: 100 }) });
export const DeleteResult = Type.Object({ deleted: Type.Array(Type.Integer(), { description: 'The quizzes named, now deleted.' }) });
export const GetQuizzesBody = Type.Object({
  quizids: Type.Optional(Type.Array(Id(), { maxItems: 100 })),
  documents: Type.Optional(Type.Array(QuizDocument, { maxItems: 100, description: 'The quizzes attached to these documents.' })),
});

export const SORTS = ['guideid', 'category', 'quiz_title', 'guide_title', 'release_date', 'sessions_submitted'] as const;
export const ListQuery = Type.Object({
  ...OffsetLimit,
  order: Type.Optional(StringEnum(['ASC', 'DESC'] as const, { default: 'DESC', description: 'Sort direction, default DESC.' })),
  sort: Type.Optional(StringEnum(SORTS, { default: 'release_date', description: 'Sort property, default release_date.' })),
  category: Type.Optional(Type.String({ maxLength: 255, description: 'Only quizzes of this category.' })),
  search: Type.Optional(Type.String({ maxLength: 255, description: 'Matches any part of quiz_title or guide_title.' })),
});

export const OneQuery = Type.Object({ quiz_revisionid: Type.Optional(Id({ description: 'An earlier revision of the quiz.' })) });

export const SessionBody = Type.Object({
  quizid: Id(),
  doctype: QuizDoctype,
  docid: Id(),
  langid: Type.Optional(Type.String({ maxLength: 10, description: 'Language of the guide taken; default the site\'s, else the guide\'s first.' })),
  response_json: Type.String({ maxLength: 100_000, description: 'The answers (SurveyJS data), a JSON object as text.' }),
});
export const CancelBody = Type.Object({ quiz_sessionid: Id() });
export const BulkCancelBody = Type.Object({ quiz_sessionids: Type.Array(Id(), { minItems: 1, maxItems: 100 }) });
export const InvalidateResult = Type.Object({ userid: Type.Integer(), invalidated: Type.Integer({ description: 'Sessions cancelled.' }) });

export const SessionsQuery = Type.Object({
  ...OffsetLimit,
  query: Type.Optional(Type.String({ maxLength: 255, description: 'Matches any part of the quiz title.' })),
  userid: Type.Optional(Id({ description: 'Sessions of this user (default: the caller\'s own; others need an Admin or their team lead).' })),
  quizid: Type.Optional(Id()),
});
export const SessionsList = Type.Object({ quizSessions: Type.Array(QuizSessionEntry) });
