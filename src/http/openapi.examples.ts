// Examples of the OpenAPI document: every operation's JSON response (and its request body
// where it reads one) carries an example, kept once in `components.examples` and referenced.
// Named records come from the demo site (openapi.examples.data.ts, written by
// scripts/capture-examples.ts); what is not a record, or a record the demo has no value
// of, is built from its schema (its default, first enum value, minimum...). The OpenAPI test
// validates each example against its schema with Ajv.
import { RECORD_EXAMPLES } from './openapi.examples.data.js';

const METHODS = ['get', 'put', 'post', 'delete', 'patch'] as const;

const STRING_FORMATS: Record<string, string> = {
  'date-time': '2026-11-24T09:00:00Z', date: '2026-11-24', email: 'user@example.com', uri: 'https://demo.example.com/', uuid: '2b5c4f3e-4e0a-4f6b-9a51-0c8f0d2f6a11',
};

/** Values of the patterns the schemas use (a language id, a unique username). */
const PATTERN_EXAMPLES: Array<[RegExp, string[]]> = [
  [/^\^\[a-z\]\{2,3\}/, ['en', 'de']],
  [/^\^\[a-z0-9\]\[a-z0-9_\]/, ['arthur_author']],
];

/** A value of `schema` (refs resolved in `schemas`, records taken from the demo's). */
export function exampleOf(schema: any, schemas: Record<string, any>, depth = 0): unknown {
  if (!schema || typeof schema !== 'object' || depth > 12) return null;
  if (schema.$ref) {
    const name = String(schema.$ref).split('/').pop()!;
    return Object.hasOwn(RECORD_EXAMPLES, name) ? RECORD_EXAMPLES[name] : exampleOf(schemas[name], schemas, depth + 1);
  }
  if (schema.example !== undefined) return schema.example;
  if (schema.default !== undefined) return schema.default;
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  if (schema.allOf) return Object.assign({}, ...schema.allOf.map((s: any) => exampleOf(s, schemas, depth + 1)));
  if (schema.anyOf || schema.oneOf) return exampleOf((schema.anyOf ?? schema.oneOf).find((s: any) => s.type !== 'null') ?? schema.anyOf?.[0], schemas, depth + 1);
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, unknown> = {};
      for (const [k, s] of Object.entries<any>(schema.properties ?? {})) out[k] = exampleOf(s, schemas, depth + 1);
      return out;
    }
    case 'array': {
      const n = Math.max(1, schema.minItems ?? 1);
      return Array.from({ length: n }, () => exampleOf(schema.items, schemas, depth + 1));
    }
    case 'integer':
    case 'number':
      return Math.max(schema.minimum ?? 1, schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return true;
    case 'string': {
      if (schema.format && STRING_FORMATS[schema.format]) return STRING_FORMATS[schema.format];
      if (schema.pattern) {
        const hit = PATTERN_EXAMPLES.find(([p]) => p.test(schema.pattern))?.[1].find((v) => new RegExp(schema.pattern, 'u').test(v));
        if (hit) return hit;
      }
      const text = 'Drive belt';
      return schema.minLength && schema.minLength > text.length ? text.padEnd(schema.minLength, 's') : text.slice(0, schema.maxLength ?? text.length);
    }
    default:
      return null;
  }
}

/** The name of an operation's example: its record (`Guide`, `GuideList`) or its method and path. */
function exampleName(schema: any, method: string, path: string, suffix: string): string {
  const ref = schema?.$ref ?? (schema?.type === 'array' ? schema.items?.$ref : undefined);
  if (ref && suffix === '') return String(ref).split('/').pop()! + (schema.$ref ? '' : 'List');
  const words = `${method} ${path}`.replace(/[{}]/g, '').split(/[^A-Za-z0-9]+/).filter(Boolean);
  return words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('') + suffix;
}

/**
 * Gives every operation's JSON success response and JSON request body an example in
 * `components.examples` (one entry per distinct value: a guide is written once).
 */
export function attachExamples(doc: any) {
  const schemas: Record<string, any> = doc.components.schemas ?? {};
  const examples: Record<string, { summary?: string; value: unknown }> = (doc.components.examples ??= {});
  const byValue = new Map<string, string>();
  const refTo = (name: string, value: unknown) => {
    const json = JSON.stringify(value);
    let at = byValue.get(json);
    if (!at) {
      at = name;
      for (let i = 2; Object.hasOwn(examples, at); i++) at = `${name}${i}`;
      examples[at] = { value };
      byValue.set(json, at);
    }
    return { $ref: `#/components/examples/${at}` };
  };
  for (const [path, item] of Object.entries<any>(doc.paths)) {
    for (const m of METHODS) {
      const op = item[m];
      if (!op) continue;
      for (const [status, response] of Object.entries<any>(op.responses ?? {})) {
        const media = response?.content?.['application/json'];
        if (!status.startsWith('2') || !media?.schema) continue;
        media.examples = { demo: refTo(exampleName(media.schema, m, path, ''), exampleOf(media.schema, schemas)) };
      }
      const body = op.requestBody?.content?.['application/json'];
      if (body?.schema) body.examples = { demo: refTo(exampleName(body.schema, m, path, 'Request'), exampleOf(body.schema, schemas)) };
    }
  }
  return doc;
}
