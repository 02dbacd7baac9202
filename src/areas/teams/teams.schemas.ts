import { Type } from '@sinclair/typebox';
import { ImageObject, Nullable, OffsetLimit, Order, Id, StringEnum } from '../../http/schemas.js';
import { UserSummary } from '../users/users.schemas.js';

/** The specification's Team (summary): exactly these fields. */
export const TeamSummary = Type.Object({
  teamid: Type.Integer(),
  image: Nullable(ImageObject),
  name: Type.String(),
  description: Type.String(),
  owner: Type.Integer({ description: 'userid of the owner.' }),
  location: Type.String(),
  latitude: Nullable(Type.Number()),
  longitude: Nullable(Type.Number()),
  reputation: Type.Integer(),
  member_count: Type.Integer(),
  new_member_since: Nullable(Type.Integer({ description: 'When the newest member joined.' })),
});

/** What the owner, the leads and Admins see after creating or editing: the summary and the join code. */
export const TeamWithCode = Type.Object({ ...TeamSummary.properties, join_code: Type.String() });

export const TeamMember = Type.Object({
  ...UserSummary.properties,
  lead: Type.Boolean(),
  status: StringEnum(['member', 'invited'] as const, { description: '`invited`: added by a lead or the owner, waiting for the user to accept (PUT .../accept); it counts for nothing yet (not oversight, approvals or sign-offs). Invitations are listed to the team\'s owner, leads and Admins only.' }),
});

export const TeamListQuery = Type.Object({ ...OffsetLimit, order: Type.Optional(Order) });

const teamFields = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  description: Type.Optional(Type.String({ maxLength: 5000 })),
  location: Type.Optional(Type.String({ maxLength: 200 })),
  latitude: Type.Optional(Nullable(Type.Number({ minimum: -90, maximum: 90 }))),
  longitude: Type.Optional(Nullable(Type.Number({ minimum: -180, maximum: 180 }))),
  imageid: Type.Optional(Nullable(Id())),
};
export const TeamCreate = Type.Object({ ...teamFields, owner: Type.Optional(Id({ description: 'Default: the caller.' })) }, { additionalProperties: false });
export const TeamPatch = Type.Object({
  ...teamFields,
  name: Type.Optional(teamFields.name),
  owner: Type.Optional(Id({ description: 'Admin or the owner only.' })),
  regenerate_join_code: Type.Optional(Type.Boolean()),
}, { additionalProperties: false });

export const MemberPut = Type.Object({
  lead: Type.Optional(Type.Boolean({ description: 'Owner, leads and Admins only.' })),
  join_code: Type.Optional(Type.String({ maxLength: 100, description: 'Lets a user add themself.' })),
}, { additionalProperties: false });
