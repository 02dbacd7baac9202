// The response serializers (fast-json-stringify), one per distinct response schema.
//
// A nullable field is `anyOf: [T, null]` in our schemas (`Nullable`, schemas.ts), which is
// what the OpenAPI document shows. fast-json-stringify serializes an `anyOf` by asking Ajv
// which branch a value matches, so every nullable field of a record costs a validation at
// each serialization, and each branch a validator that Ajv compiles the first time a value
// meets it: a full guide's serializer held 88 of them, compiled in about 300 ms of the
// event loop when the first guides were built after a start (once per serializer holding
// the record), and serialized a guide 8 % slower than with none. Where the other branch is a
// plain typed schema, the serializer is given `type: [T, 'null']` instead, which it writes
// with a `typeof` test: the same bytes (test/areas/http/serializers.test.ts), no Ajv.
// (`enum` is allowed in such a branch: a serializer writes the value, it does not check it.)
// A union of an array and an object (a step's media) is written the same way. Left to Ajv:
// a union of two objects (a comment's media: an image's record or a video's), and Ajv,
// asked of any part of a serializer's schema, compiles the whole (about 100 ms of the
// event loop for a full guide's, once per serializer, the first time a comment with media
// is written after a start; a step's media did it for every guide before).
import fastJsonStringify from 'fast-json-stringify';

type Schema = Record<string, unknown>;

/** Keywords a branch may carry and still be written as one of a list of types. */
const PLAIN_KEYWORDS = new Set([
  'type', 'description', 'title', 'examples', 'default', 'format', 'enum', 'pattern', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum',
  'minLength', 'maxLength', 'properties', 'required', 'additionalProperties', 'items', 'minItems', 'maxItems',
]);
/** Keywords whose value maps names to schemas. */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions']);
/** Keywords whose value is data, not a schema: copied as it is. */
const DATA_KEYWORDS = new Set(['enum', 'const', 'default', 'examples', 'example', 'required']);

const isNull = (s: unknown) => typeof s === 'object' && s !== null && (s as Schema).type === 'null' && Object.keys(s).length === 1;

/**
 * `schema` with every `anyOf: [T, {type: 'null'}]` (either order, nothing beside it but a
 * description or title) whose T has one `type` and only plain keywords written as T with
 * `type: [T.type, 'null']`. A copy; `schema` is not changed.
 */
export function serializerSchema(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(serializerSchema);
  if (typeof schema !== 'object' || schema === null) return schema;
  const out: Schema = {};
  for (const [k, v] of Object.entries(schema)) {
    out[k] = DATA_KEYWORDS.has(k) ? v
      : SCHEMA_MAPS.has(k) && typeof v === 'object' && v !== null && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).map(([name, s]) => [name, serializerSchema(s)]))
      : serializerSchema(v);
  }
  const { anyOf, ...beside } = out;
  if (!Array.isArray(anyOf) || !Object.keys(beside).every(isAnnotation)) return out;
  if (anyOf.length === 2) {
    const nullAt = anyOf.findIndex(isNull);
    if (nullAt >= 0) {
      const other = anyOf[1 - nullAt] as Schema;
      if (typeof other.type !== 'string' || other.type === 'null' || !Object.keys(other).every((k) => PLAIN_KEYWORDS.has(k))) return out;
      return { ...beside, ...other, type: [other.type, 'null'] };
    }
  }
  return shapesByType(anyOf as Schema[], beside) ?? out;
}

const isAnnotation = (k: string) => k === 'description' || k === 'title';

/**
 * A union of an array and an object (a step's media: its images, or a video's record), and
 * null beside them or not, as one schema with a list of types, which fast-json-stringify
 * tells apart by `Array.isArray` and `typeof`: each branch plain, of its own type, none
 * sharing a keyword with another but annotations. Undefined for any other union (two
 * objects, or types whose tests overlap, like integer and number, need Ajv to choose).
 */
function shapesByType(branches: Schema[], beside: Schema): Schema | undefined {
  if (branches.length < 2) return undefined;
  const merged: Schema = { ...beside };
  const types: string[] = [];
  for (const branch of branches) {
    const type = branch.type;
    if (typeof type !== 'string' || !SHAPE_TYPES.has(type) || types.includes(type)) return undefined;
    if (!Object.keys(branch).every((k) => PLAIN_KEYWORDS.has(k))) return undefined;
    for (const [k, v] of Object.entries(branch)) {
      if (k === 'type' || isAnnotation(k)) continue;
      if (k in merged) return undefined;
      merged[k] = v;
    }
    types.push(type);
  }
  return types.filter((t) => t !== 'null').length >= 2 ? { ...merged, type: types } : undefined;
}

/** Types whose tests in a serializer cannot take a value of another (an array is not taken as an object). */
const SHAPE_TYPES = new Set(['array', 'object', 'null']);

/**
 * Fastify's serializer compiler: one serializer per distinct response schema. Fastify
 * compiles one per route and status (352 at the last count, 12 MB of generated source kept
 * alive), though many are the same record (a full guide answers six routes) or the same
 * error shape.
 */
export function serializerCompiler(): (route: { schema: unknown }) => (data: unknown) => string {
  const serializers = new Map<string, (data: unknown) => string>();
  return ({ schema }) => {
    const key = JSON.stringify(schema);
    let serialize = serializers.get(key);
    if (!serialize) serializers.set(key, (serialize = fastJsonStringify(serializerSchema(schema) as Parameters<typeof fastJsonStringify>[0])));
    return serialize;
  };
}
