// The audit log's records and queries (docs/audit.md).
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StringEnum, TimestampParam } from '../../http/schemas.js';
import { AUDIT_ACTIONS, AUDIT_RESOURCE_TYPES } from '../../audit/actions.js';

const Hash = Type.String({ description: 'HMAC-SHA256, 64 hex digits.' });

export const AuditEntry = Type.Object({
  auditid: Type.Integer({ description: 'Gapless and increasing in commit order.' }),
  time: Type.Integer({ description: 'UNIX time of the change, in seconds (the server\'s clock).' }),
  db_time: Type.Integer({ description: 'UNIX time when the entry was appended (the database\'s clock).' }),
  userid: Nullable(Type.Integer({ description: 'The acting account; null for the system and for failed logins of no account.' })),
  impersonator_userid: Nullable(Type.Integer({ description: 'The Admin behind an impersonation token.' })),
  action: StringEnum(AUDIT_ACTIONS),
  resource_type: StringEnum(AUDIT_RESOURCE_TYPES),
  resource_id: Type.String({ description: 'The resource\'s id (empty for a failed login of no account).' }),
  langid: Nullable(Type.String()),
  revisionid_before: Nullable(Type.Integer()),
  revisionid_after: Nullable(Type.Integer()),
  meaning: Nullable(Type.String({ description: 'What a signer attested (approved, rejected, reviewed...), with the stage.' })),
  reason: Nullable(Type.String({ description: 'The notes or change reason the user gave.' })),
  changes: Nullable(Type.Record(Type.String(), Type.Object({
    old: Type.Optional(Type.Unknown()),
    new: Type.Optional(Type.Unknown()),
  }), { description: 'The fields changed; old and new values only for scalars of at most 256 characters, longer text as {sha256, length}.' })),
  request_id: Nullable(Type.String()),
  client_ip: Nullable(Type.String()),
  prev_hash: Hash,
  hash: Hash,
}, { additionalProperties: false });

export const AuditQuery = Type.Object({
  resource_type: Type.Optional(StringEnum(AUDIT_RESOURCE_TYPES)),
  resource_id: Type.Optional(Type.String({ maxLength: 100 })),
  userid: Type.Optional(Type.Integer({ minimum: 1, maximum: 2_147_483_647 })),
  action: Type.Optional(StringEnum(AUDIT_ACTIONS)),
  since: Type.Optional(TimestampParam({ description: 'Entries whose time is at or after this UNIX time.' })),
  until: Type.Optional(TimestampParam({ description: 'Entries whose time is before this UNIX time.' })),
});

export const AuditListQuery = Type.Object({
  ...AuditQuery.properties,
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
  cursor: Type.Optional(Type.String({ maxLength: 40, description: 'The `next` of the page before.' })),
});

export const AuditExportQuery = Type.Object({
  ...AuditQuery.properties,
  format: StringEnum(['jsonl', 'csv'] as const, { default: 'jsonl' }),
});

export const AuditPage = Type.Object({ entries: Type.Array(AuditEntry), next: Nullable(Type.String()) });

export const AuditVerifyQuery = Type.Object({
  from: Type.Optional(Type.Integer({ minimum: 1, description: 'Start at this auditid, trusting the entry before it (a checkpoint verified earlier).' })),
  expect_head: Type.Optional(Type.String({ maxLength: 80, description: 'AUDITID:HASH, a head recorded earlier: entries deleted after it are detected.' })),
});

export const AuditVerifyResult = Type.Union([
  Type.Object({ ok: Type.Literal(true), entries: Type.Integer(), head: Nullable(Type.Object({ auditid: Type.Integer(), hash: Hash })) }),
  Type.Object({ ok: Type.Literal(false), first_bad_auditid: Type.Integer(), reason: Type.String() }),
]);

export type AuditQuery = Static<typeof AuditQuery>;
