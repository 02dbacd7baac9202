import type { Generated } from 'kysely';

export interface UserTable {
  userid: Generated<number>;
  /** Stored lower-cased. */
  email: string;
  password_hash: string;
  /** Display name; not unique. */
  username: string;
  /** Lower-cased display name, for indexed prefix search. */
  username_lower: string;
  unique_username: string | null;
  join_date: number;
  reputation: number;
  imageid: number | null;
  /** Comma-separated: Admin, Author, Moderator, User. */
  privileges: string;
  enabled: number;
  /** UNIX time of the ban; 0 when not banned. */
  banned: number;
  sso_userid: string | null;
  employee_id: string | null;
  /** The Admin who created the account through createByEmails or register. */
  created_by: number | null;
  location: string;
  about: string;
  /** Counts password changes and resets; a token works only while it carries the current one. */
  credentials_version: Generated<number>;
}

export interface TokenTable {
  /** SHA-256 of the token, hex; the token itself is never stored. */
  token_hash: string;
  userid: number;
  created_date: number;
  expires_date: number;
  revoked_date: number | null;
  /** The Admin who created it through impersonation; it works only while they are an enabled Admin. */
  impersonated_by: number | null;
  /** The user's credentials_version when the token was issued. */
  credentials_version: Generated<number>;
  /** SHA-256 of the `session_cp` cookie the login that issued it set, hex; null: none (http/session.ts). */
  session_hash: Generated<string | null>;
}

export interface PasswordResetTable {
  token_hash: string;
  userid: number;
  created_date: number;
  expires_date: number;
  used_date: number | null;
}

export interface UsersTables {
  users: UserTable;
  tokens: TokenTable;
  password_resets: PasswordResetTable;
}
