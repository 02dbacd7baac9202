// Schema pieces every area shares. Route schemas drive validation, serialization,
// types and the OpenAPI document together.
import { Type, type TSchema, type Static } from '@sinclair/typebox';

/** A string enum that Ajv reports as "must be one of ..." (TypeBox unions would not). */
export function StringEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/** The marker of `CaseInsensitiveEnum`: a value in any case is the enum's value in its documented case. */
export const CASE_INSENSITIVE = 'x-case-insensitive';

/**
 * A string enum that takes its values in any case (`GUIDE` for `guide`): the value becomes the
 * documented case before validation (http/body.ts), so handlers, storage and answers see only
 * that. For enums the specification's clients send.
 */
export function CaseInsensitiveEnum<const T extends readonly string[]>(values: T, options: Record<string, unknown> = {}) {
  return StringEnum(values, { [CASE_INSENSITIVE]: true, ...options });
}

export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()]);

export const Order = StringEnum(['ASC', 'DESC'] as const, { description: 'Ordering by the resource identifier.' });

/** `offset` (>= 0, default 0) and `limit` (1 to 200, default 20). */
export const OffsetLimit = {
  offset: Type.Integer({ minimum: 0, maximum: 2_147_483_647, default: 0, description: 'Items to skip.' }),
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 20, description: 'Items to return, 1 to 200.' }),
};

/** `page` (from 1, default 1) and `limit` (1 to 200, default 10). */
export const PageLimit = {
  page: Type.Integer({ minimum: 1, maximum: 10_000_000, default: 1, description: 'Page number, from 1.' }),
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 10, description: 'Items per page.' }),
};

export const Timestamp = Type.Integer({ description: 'UNIX time in seconds.' });

/** A timestamp in a query or body: UNIX seconds, 0 up to what a JavaScript number holds exactly. */
export const TimestampParam = (options: Record<string, unknown> = {}) => Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'UNIX time in seconds.', ...options });

export const ErrorItem = Type.Object({
  field: Type.String(),
  code: Type.String(),
  message: Type.String(),
  index: Type.Optional(Type.Integer()),
});

export const ErrorResponse = Type.Object({
  error: Type.Literal(true),
  message: Type.String(),
  msg: Type.String(),
  code: Type.String(),
  request_id: Type.String(),
  errors: Type.Optional(Type.Array(ErrorItem)),
}, { description: 'Every error except 409 has this shape.' });

/** The image object: id, guid and the URL of each size variant. */
export const ImageObject = Type.Object({
  id: Type.Integer(),
  guid: Type.String(),
  mini: Type.Optional(Type.String()),
  thumbnail: Type.Optional(Type.String()),
  '140x105': Type.Optional(Type.String()),
  '200x150': Type.Optional(Type.String()),
  standard: Type.Optional(Type.String()),
  '440x330': Type.Optional(Type.String()),
  medium: Type.Optional(Type.String()),
  large: Type.Optional(Type.String()),
  huge: Type.Optional(Type.String()),
  original: Type.Optional(Type.String()),
}, { description: 'An image: id, guid and the URL of each size variant present.' });
export type ImageObject = Static<typeof ImageObject>;

/** Ids are 32-bit integers in both databases: a larger one cannot exist (422, not a database error). */
export const MAX_ID = 2_147_483_647;

/** An id: an integer from 1 to MAX_ID. */
export const Id = (options: Record<string, unknown> = {}) => Type.Integer({ minimum: 1, maximum: MAX_ID, ...options });

export const IdParam = (name: string) => Type.Object({ [name]: Id() });

/** Response schemas for the usual errors of a route, for the OpenAPI document. */
export function errorResponses(...statuses: number[]) {
  const out: Record<number, typeof ErrorResponse> = {};
  for (const s of statuses) out[s] = ErrorResponse;
  return out;
}

export const Empty = Type.Null({ description: 'No content.' });
