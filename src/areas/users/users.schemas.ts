import { Type, type Static } from '@sinclair/typebox';
import { ImageObject, Nullable, OffsetLimit, Order, StringEnum, Id, TimestampParam } from '../../http/schemas.js';
import { PRIVILEGES } from '../../http/auth.js';

const userFields = {
  userid: Type.Integer(),
  username: Type.String({ description: 'Display name; not unique.' }),
  unique_username: Nullable(Type.String()),
  join_date: Nullable(Type.Integer()),
  image: Nullable(ImageObject),
  reputation: Type.Integer(),
  url: Type.String(),
  teams: Type.Array(Type.Integer(), { description: 'teamids the user belongs to.' }),
  privileges: Type.Array(StringEnum(PRIVILEGES)),
};

/** The specification's User (summary): exactly these fields. */
export const UserSummary = Type.Object(userFields);
export type UserSummary = Static<typeof UserSummary>;

/** In the user list: the summary plus `enabled` and `banned`. */
export const UserListItem = Type.Object({ ...userFields, enabled: Type.Boolean(), banned: Type.Integer({ description: 'UNIX time of the ban; 0 when not banned.' }) });

export const BadgeCounts = Type.Object({ bronze: Type.Integer(), silver: Type.Integer(), gold: Type.Integer() });

/** One user (GET /users/{userid}): the summary with badge counts and profile text. */
export const UserDetail = Type.Object({
  ...userFields,
  enabled: Type.Boolean(),
  banned: Type.Integer(),
  badge_counts: BadgeCounts,
  location: Type.String(),
  about: Type.String(),
  permissions: Type.Optional(Type.Array(Type.String(), { description: 'Permissions beyond privileges (extension): manage-external-training-module.' })),
});

const Links = Type.Object({ self: Type.String(), guides: Type.String(), completions: Type.String(), favorites: Type.String() });

/** The logged-in user (GET /user): the detail plus private fields. */
export const UserSelf = Type.Object({
  ...UserDetail.properties,
  email: Type.String(),
  sso_userid: Nullable(Type.String()),
  employee_id: Nullable(Type.String()),
  links: Links,
});

/** Login, register and impersonate answer the user and a token. */
export const UserWithToken = Type.Object({
  ...UserSelf.properties,
  authToken: Type.String({ description: 'Send as `Authorization: api <token>`. Stored hashed; shown once.' }),
  token_expires: Type.Integer({ description: 'UNIX time the token stops working: TOKEN_TTL seconds (default 30 days) after it was issued. Logging out, or a password change, ends it sooner.' }),
});

/** Register and login read `X-App-Id` (required where the site names apps in APP_IDS or registration is public). */
export const AppIdHeader = Type.Object({
  'x-app-id': Type.Optional(Type.String({ description: 'The calling app, one of the APP_IDS the site configures; required there and with public registration (401 `invalid_app_id` otherwise).' })),
});

export const Badge = Type.Object({
  badgeid: Type.String(),
  title: Type.String(),
  description: Type.String(),
  level: StringEnum(['bronze', 'silver', 'gold'] as const),
  date: Type.Integer({ description: 'When it was earned.' }),
});

export const UniqueUsername = Type.String({ pattern: '^[a-z0-9][a-z0-9_]{2,29}$', description: 'Lower-case letters, digits and _, 3 to 30 characters, not starting with _.' });
export const Password = Type.String({ minLength: 8, maxLength: 200, description: 'At least 8 characters.' });
export const Email = Type.String({ format: 'email', maxLength: 254 });

export const UserListQuery = Type.Object({ ...OffsetLimit, order: Type.Optional(Order), joinedSince: Type.Optional(TimestampParam()) });
export const SearchQuery = Type.Object({ ...OffsetLimit });

/** Permissions an Admin grants beyond privileges (PATCH /users/{userid} `permissions`). */
export const USER_PERMISSIONS = ['manage-external-training-module'] as const;

export const UserPatch = Type.Object({
  username: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  unique_username: Type.Optional(Nullable(UniqueUsername)),
  about: Type.Optional(Type.String({ maxLength: 10000 })),
  location: Type.Optional(Type.String({ maxLength: 200 })),
  email: Type.Optional(Email),
  password: Type.Optional(Password),
  current_password: Type.Optional(Type.String({ maxLength: 200, description: 'Required when a user changes their own e-mail or password.' })),
  imageid: Type.Optional(Nullable(Id())),
  privileges: Type.Optional(Type.Array(StringEnum(PRIVILEGES), { maxItems: 4, description: 'Admin only.' })),
  enabled: Type.Optional(Type.Boolean({ description: 'Admin only.' })),
  banned: Type.Optional(Type.Union([
    Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'As the record shows it: the UNIX time of the ban, 0 for not banned.' }),
    Type.Boolean({ description: 'true bans now (an existing ban keeps its time), false lifts the ban.' }),
  ], { description: 'Admin only. An integer timestamp (0: not banned) or a boolean.' })),
  sso_userid: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200, description: 'Admin only.' }))),
  employee_id: Type.Optional(Nullable(Type.String({ minLength: 1, maxLength: 200, description: 'Admin only.' }))),
  permissions: Type.Optional(Type.Array(StringEnum(USER_PERMISSIONS), { maxItems: 10, description: 'Admin only (extension): the permissions the user has beyond privileges, replacing them; `manage-external-training-module` lets a user import and promote external training modules.' })),
}, { additionalProperties: false });
