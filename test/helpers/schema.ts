// Checks a response body against the route's record schema, strictly: every object of
// the schema is closed (no field the schema does not name), so a body has exactly the
// record's shape.
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { TSchema } from '@sinclair/typebox';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ allErrors: true, strict: false }));
const compiled = new WeakMap<TSchema, ValidateFunction>();

function closed(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(closed);
  if (!schema || typeof schema !== 'object') return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) out[k] = k === 'properties' ? Object.fromEntries(Object.entries(v as object).map(([p, s]) => [p, closed(s)])) : closed(v);
  if (out.type === 'object' && out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
  return out;
}

/** Throws (failing the test) unless `value` matches `schema` exactly. */
export function expectSchema(schema: TSchema, value: unknown): void {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = ajv.compile(closed(JSON.parse(JSON.stringify(schema))) as object);
    compiled.set(schema, validate);
  }
  if (!validate(value)) throw new Error(`body does not match ${schema.title ?? 'its schema'}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(value).slice(0, 2000)}`);
}
