// Schemas of the skills area. Ratings are 0 to 1 (the UI shows 0 to 4, untrained to expert).
import { Type } from '@sinclair/typebox';
import { CaseInsensitiveEnum, Id, Nullable, OffsetLimit, StringEnum, Timestamp } from '../../http/schemas.js';

const Unit = (description?: string) => Type.Number({ minimum: 0, maximum: 1, ...(description ? { description } : {}) });
const group = <K extends string>(names: readonly K[]) => Type.Object(Object.fromEntries(names.map((n) => [n, Unit()])) as Record<K, ReturnType<typeof Unit>>, { additionalProperties: false });

export const SkillWeights = Type.Object({
  top: group(['user', 'management'] as const),
  user: group(['training', 'quiz', 'practice'] as const),
  management: group(['signoff', 'supervisor'] as const),
}, { description: 'Weights by group; each group\'s values sum to 1.' });
export const WeightsPut = Type.Partial(SkillWeights, { additionalProperties: false, description: 'The groups to change (each whole; its values summing to 1 within 0.001); omitted groups are unchanged.' });

export const Doctype = CaseInsensitiveEnum(['guide', 'wiki'] as const);
export const SupervisorRating = Type.Object({
  userid: Type.Integer(), doctype: Doctype, docid: Type.Integer(), rating: Unit('0 to 1.'), rated_by: Nullable(Type.Integer()),
  self_override: Type.Boolean({ description: 'An Admin\'s rating of themself (only Admins act on their own account).' }), date: Timestamp,
});
export const SupervisorItem = Type.Object({ userid: Id(), doctype: Doctype, docid: Id(), rating: Unit('0 to 1.') });
export const SupervisorBody = Type.Object({ ratings: Type.Array(SupervisorItem, { minItems: 1, maxItems: 200 }) });
export const OneSupervisorBody = Type.Object({ rating: Unit('0 to 1.') });
export const RatingParams = Type.Object({ doctype: Doctype, docid: Id(), userid: Id() });

const Component = Type.Object({
  component: Type.String(),
  weight: Type.Number({ description: 'As configured.' }),
  applied_weight: Type.Number({ description: 'Rescaled over the group\'s components that apply; 0 when it does not apply.' }),
  value: Nullable(Type.Number({ description: 'The assigned value, 0 to 1; null: does not apply.' })),
  contribution: Type.Number({ description: 'applied_weight × value.' }),
});
export const SkillBreakdown = Type.Object({
  userid: Type.Integer(),
  doctype: Doctype,
  docid: Type.Integer(),
  rating: Unit('The calculated total, 0 to 1.'),
  groups: Type.Array(Type.Object({
    group: StringEnum(['user', 'management'] as const),
    weight: Type.Number(),
    applied_weight: Type.Number(),
    value: Nullable(Type.Number()),
    contribution: Type.Number(),
    components: Type.Array(Component),
  })),
});

export const MatrixBody = Type.Object({
  userids: Type.Array(Id(), { minItems: 1, maxItems: 100 }),
  guideids: Type.Array(Id(), { minItems: 1, maxItems: 100 }),
});
export const SkillsMatrix = Type.Object({
  users: Type.Array(Type.Object({ userid: Type.Integer(), username: Type.String(), average_rating: Unit() })),
  guides: Type.Array(Type.Object({ guideid: Type.Integer(), title: Type.String(), average_rating: Unit() })),
  ratings: Type.Array(Type.Object({ userid: Type.Integer(), guideid: Type.Integer(), rating: Unit() }), { description: 'One per user and guide, by user then guide as asked.' }),
});

export const TeamCourse = Type.Object({
  wikiid: Type.Integer(), title: Type.String(), stages_count: Type.Integer({ description: 'Guide and wiki stages (rated).' }),
  members_count: Type.Integer(), average_rating: Nullable(Unit('The members\' average of their course ratings (a course rating: the average over its rated stages); null without members or rated stages.')),
});

const UserRating = Type.Object({ userid: Type.Integer(), username: Type.String(), rating: Nullable(Unit()) });
export const CourseAssigneesRatings = Type.Object({
  wikiid: Type.Integer(),
  users: Type.Array(UserRating, { description: 'Users assigned directly.' }),
  teams: Type.Array(Type.Object({ teamid: Type.Integer(), name: Type.String(), members_count: Type.Integer(), average_rating: Nullable(Unit()) })),
  average_rating: Nullable(Unit('Over every user reached (directly or through a team).')),
});

export const GuideAssignee = Type.Object({
  userid: Type.Integer(), username: Type.String(), rating: Unit(),
  training: Type.Number(), quiz: Nullable(Type.Number()), practice: Nullable(Type.Number()), signoff: Nullable(Type.Number()), supervisor: Nullable(Type.Number()),
});
export const GuideAssigneesRatings = Type.Object({
  guideid: Type.Integer(),
  total: Type.Integer({ description: 'Assignees reached (all pages).' }),
  assignees: Type.Array(GuideAssignee),
  averages: Type.Object({
    rating: Nullable(Type.Number()), training: Nullable(Type.Number()), quiz: Nullable(Type.Number()), practice: Nullable(Type.Number()), signoff: Nullable(Type.Number()), supervisor: Nullable(Type.Number()),
  }, { description: 'Over this page\'s assignees (a component over those to whom it applies).' }),
});
export const PageQuery = Type.Object({ ...OffsetLimit });
