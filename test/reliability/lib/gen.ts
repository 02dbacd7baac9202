// fast-check arbitraries from JSON Schema: values a schema accepts (with edge cases:
// unicode, numbers at the bounds, long strings), values it refuses (wrong types, out of
// range, missing fields, unknown fields), hostile strings, and deterministic minimal
// "example" values for building valid requests.
import fc from 'fast-check';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { ValidateFunction } from 'ajv';
import type { JsonSchema } from './openapi.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
// Judges candidates the way the app's body validator does (no coercion, formats on).
const judge = addFormats(new Ajv({ strict: false, allErrors: false, coerceTypes: false }));
const judges = new WeakMap<object, ValidateFunction>();
export function accepts(schema: JsonSchema, value: unknown): boolean {
  let v = judges.get(schema);
  if (!v) {
    try {
      v = judge.compile(schema);
    } catch {
      v = (() => true) as unknown as ValidateFunction;
    }
    judges.set(schema, v);
  }
  return v(value) as boolean;
}

/** Existing values by field name (ids from the database), used for some id-like fields. */
export type Pools = Record<string, Array<string | number>>;

/** Strings that break naive code: unicode edge cases, control characters, markup. */
export const EDGE_STRINGS = [
  '', ' ', '\t', '\n', '\r\n', '\u0000', 'nul\u0000byte', '\u0007', '\u001b[31mred',
  'é', 'e\u0301', 'ß', 'İ', 'ǅ', 'ﬃ', '日本語', '한국어', 'العربية', 'עברית', '\u202eevil\u202c', '\u200b', '\u200d', '\ufeffbom', '\uffff', '\ud800', '\udfff',
  '😀', '👩‍👩‍👧‍👦', '🏳️‍🌈', '\u{10ffff}', 'Z̤͔ͧ̑̓ä͖̭̈̇lͮ̒ͫǧ̗͚̚o̙̔ͮ̇͐̇',
  '<b>bold</b>', '<script>alert(1)</script>', '"quoted"', "it's", '\\', '\\\\', '/', '%', '%25', '%00', '_', '*', '?', '#', '&', '=', '+',
  'null', 'undefined', 'true', 'NaN', 'Infinity', '-1', '0', '1e308', '0x1f', '{}', '[]', '__proto__', 'constructor', 'toString', 'hasOwnProperty',
  "' OR '1'='1", '1; DROP TABLE users; --', '../../etc/passwd', '${7*7}', '{{7*7}}',
];

/** Values for a path parameter that should be refused or not found. */
export const HOSTILE_PATH_VALUES = [
  '0', '-1', '1.5', '1e3', '0x10', '+1', '01', 'abc', 'NaN', 'Infinity', 'null', 'true', '9'.repeat(25), String(2 ** 53), String(2 ** 31),
  // ('..' alone is left out: a client resolves it before sending; the hostile-input suite sends it raw.)
  '%', '../..', '../../etc/passwd', '..\\..\\windows\\win.ini', '.%2e/.%2e/', ' ', '\u0000', 'ä', '😀', '\u202e', '<script>alert(1)</script>', "' OR '1'='1", 'a'.repeat(600),
];

function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

function clip(s: string, min: number | undefined, max: number | undefined): string {
  let out = s;
  if (max !== undefined && codePoints(out) > max) out = [...out].slice(0, max).join('');
  if (min !== undefined) while (codePoints(out) < min) out += 'x';
  return out;
}

function typesOf(schema: JsonSchema): string[] {
  if (Array.isArray(schema.type)) return schema.type;
  if (typeof schema.type === 'string') return [schema.type];
  if (schema.properties) return ['object'];
  return [];
}

function mergeAllOf(schema: JsonSchema): JsonSchema {
  if (!Array.isArray(schema.allOf)) return schema;
  const { allOf, ...rest } = schema;
  const out: JsonSchema = { ...rest };
  for (const part of allOf.map(mergeAllOf)) {
    for (const [k, v] of Object.entries(part)) {
      if (k === 'properties') out.properties = { ...(out.properties ?? {}), ...(v as object) };
      else if (k === 'required') out.required = [...new Set([...(out.required ?? []), ...(v as string[])])];
      else out[k] ??= v;
    }
  }
  return out;
}

function numberBounds(schema: JsonSchema, integer: boolean) {
  const step = integer ? 1 : 1e-9;
  // JSON Schema's numeric exclusive bounds, or OpenAPI 3.0's boolean ones beside minimum/maximum.
  let min: number | undefined = typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + step : schema.minimum !== undefined && schema.exclusiveMinimum === true ? schema.minimum + step : schema.minimum;
  let max: number | undefined = typeof schema.exclusiveMaximum === 'number' ? schema.exclusiveMaximum - step : schema.maximum !== undefined && schema.exclusiveMaximum === true ? schema.maximum - step : schema.maximum;
  if (integer) {
    min = min === undefined ? undefined : Math.ceil(min);
    max = max === undefined ? undefined : Math.floor(max);
  }
  return { min, max };
}

const word = fc.stringMatching(/^[a-z][a-z0-9]{2,10}$/);

function stringArb(schema: JsonSchema, name: string): fc.Arbitrary<string> {
  const min = schema.minLength;
  const max = schema.maxLength;
  const fit = (a: fc.Arbitrary<string>) => a.map((s) => clip(s, min, max));
  switch (schema.format) {
    case 'email':
      return fc.tuple(word, fc.nat(99999)).map(([w, n]) => clip(`${w}${n}@example.com`, undefined, max));
    case 'date-time':
      return fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());
    case 'date':
      return fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
    case 'uri': case 'url': case 'uri-reference':
      return fc.webUrl();
    case 'uuid':
      return fc.uuid();
  }
  if (typeof schema.pattern === 'string') {
    let re: RegExp | null = null;
    try {
      re = new RegExp(schema.pattern, 'u');
    } catch {}
    if (re) {
      const r = re;
      // Padded to minLength first (with a character the pattern's last class may take), so
      // that a pattern allowing shorter strings (tokens) does not make the filter reject
      // nearly every candidate and the generator hang.
      const pad = (s: string) => (min !== undefined && codePoints(s) < min ? [s.padEnd(min, s.slice(-1) || 'a'), s.padEnd(min, 'a'), s.padEnd(min, '0')].find((p) => r.test(p)) ?? s : s);
      return fc.stringMatching(r).map(pad).filter((s) => r.test(s) && (min === undefined || codePoints(s) >= min) && (max === undefined || codePoints(s) <= max));
    }
  }
  const plain = /name|title|subject/i.test(name)
    ? fc.tuple(word, word).map(([a, b]) => `${a} ${b}`)
    : fc.oneof(word, fc.lorem({ maxCount: 8 }));
  return fit(fc.oneof(
    { weight: 5, arbitrary: plain },
    { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 40 }) },
    { weight: 2, arbitrary: fc.constantFrom(...EDGE_STRINGS) },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
    ...(max !== undefined && max <= 100_000 ? [{ weight: 1, arbitrary: fc.constant('w'.repeat(max)) }, { weight: 1, arbitrary: fc.constant('😀'.repeat(max)) }] : []),
  ));
}

export interface GenOptions {
  pools?: Pools;
  /** Probability-ish weight of optional properties being present (0..10). */
  optionalWeight?: number;
}

/** Fields that name an existing thing: their values come from the database's values of the same name. */
export const REFERENCE_NAME = /(^|_)id$|id$|^owner$|^guid$|^category$|^namespace$|^langid$|^context$|^doc_?type$|^flag$/;
const isIdName = (name: string) => REFERENCE_NAME.test(name);

/** Values the schema accepts. */
export function valid(schema: JsonSchema | boolean | undefined, name = '', opts: GenOptions = {}, depth = 0): fc.Arbitrary<unknown> {
  if (schema === undefined || schema === true || (typeof schema === 'object' && Object.keys(schema).length === 0)) {
    return depth > 3 ? fc.constant(null) : fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.boolean(), fc.constant(null));
  }
  if (schema === false) return fc.constant(undefined);
  const s = mergeAllOf(schema);
  if ('const' in s) return fc.constant(s.const);
  if (Array.isArray(s.enum)) return fc.constantFrom(...s.enum);
  if (Array.isArray(s.anyOf) || Array.isArray(s.oneOf)) {
    const members: JsonSchema[] = s.anyOf ?? s.oneOf;
    return fc.oneof(...members.map((m) => ({ weight: typesOf(m).includes('null') && members.length > 1 ? 1 : 4, arbitrary: valid(m, name, opts, depth + 1) })));
  }
  const types = typesOf(s);
  if (types.length > 1) return fc.oneof(...types.map((t) => ({ weight: t === 'null' ? 1 : 4, arbitrary: valid({ ...s, type: t }, name, opts, depth + 1) })));
  const pool = opts.pools?.[name];
  switch (types[0]) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer': {
      const { min, max } = numberBounds(s, true);
      const lo = min ?? -(2 ** 31);
      const hi = max ?? 2 ** 31 - 1;
      const edges = [lo, hi, lo + 1, hi - 1, 0, 1, 2 ** 31 - 1, Number.MAX_SAFE_INTEGER, -1].filter((n) => n >= (min ?? -Infinity) && n <= (max ?? Infinity));
      const base = fc.oneof({ weight: 4, arbitrary: fc.integer({ min: Math.max(lo, -(2 ** 31)), max: Math.min(hi, 2 ** 31 - 1) }) }, { weight: 2, arbitrary: fc.constantFrom(...edges) });
      const numPool = pool?.map(Number).filter((n) => Number.isInteger(n) && n >= (min ?? -Infinity) && n <= (max ?? Infinity));
      return numPool?.length && isIdName(name) ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...numPool) }, { weight: 2, arbitrary: base }) : base;
    }
    case 'number': {
      const { min, max } = numberBounds(s, false);
      return fc.oneof(
        fc.double({ min: min ?? -1e12, max: max ?? 1e12, noNaN: true, noDefaultInfinity: true }).filter((n) => !Object.is(n, -0)),
        fc.constantFrom(...[min ?? 0, max ?? 0, 0, 1, -1, 0.5].filter((n) => n >= (min ?? -Infinity) && n <= (max ?? Infinity))),
      );
    }
    case 'string': {
      const base = stringArb(s, name);
      const strPool = isIdName(name) ? pool?.map(String).filter((v) => accepts(s, v)) : undefined;
      return strPool?.length ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...strPool) }, { weight: 2, arbitrary: base }) : base;
    }
    case 'array': {
      const minItems = s.minItems ?? 0;
      const maxItems = Math.min(s.maxItems ?? minItems + 4, minItems + 4);
      if (depth > 5) return fc.constant(Array.from({ length: minItems }, () => null));
      const item = valid(s.items ?? {}, name, opts, depth + 1);
      return s.uniqueItems ? fc.uniqueArray(item, { minLength: minItems, maxLength: maxItems, selector: (v) => JSON.stringify(v) }) : fc.array(item, { minLength: minItems, maxLength: maxItems });
    }
    case 'object': {
      const props: Record<string, JsonSchema> = s.properties ?? {};
      const required: string[] = (s.required ?? []).filter((k: string) => k in props);
      if (depth > 6) return fc.constant({});
      const weight = opts.optionalWeight ?? 5;
      const entries = Object.entries(props).map(([k, ps]) => {
        const arb = valid(ps, k, opts, depth + 1);
        return [k, required.includes(k) ? arb : fc.option(arb, { nil: undefined, freq: Math.max(1, 10 - weight) })] as const;
      });
      return fc.record(Object.fromEntries(entries)).map((o) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)));
    }
    default:
      return fc.oneof(fc.string({ maxLength: 10 }), fc.integer(), fc.constant(null));
  }
}

/** Candidate values of every JSON type, and numbers at the edges. */
const WRONG_VALUES: unknown[] = [
  null, true, false, 0, -1, 1, 1.5, -0.5, 1e308, -1e308, 2 ** 31, 2 ** 53, -(2 ** 53), 2 ** 64, Number.MIN_VALUE,
  '', 'x', '1', 'true', 'null', '1e3', ' 1', [], [1], ['x'], [null], {}, { a: 1 }, JSON.parse('{"__proto__": {"admin": true}}'),
];

/** Values the schema refuses: wrong types, numbers out of range, strings too long or off-pattern, objects missing or adding fields. */
export function invalid(schema: JsonSchema | undefined, name = '', depth = 0): fc.Arbitrary<unknown> {
  if (!schema || typeof schema !== 'object' || Object.keys(schema).length === 0) return fc.constant(undefined);
  const s = mergeAllOf(schema);
  const options: fc.Arbitrary<unknown>[] = [];
  const wrong = WRONG_VALUES.filter((v) => !accepts(s, v));
  if (wrong.length) options.push(fc.constantFrom(...wrong));
  const types = typesOf(s);
  if (types.includes('integer') || types.includes('number')) {
    const { min, max } = numberBounds(s, types.includes('integer'));
    const out = [min !== undefined ? min - 1 : undefined, max !== undefined ? max + 1 : undefined, max !== undefined ? max * 1000 + 7 : undefined].filter((v): v is number => v !== undefined && !accepts(s, v));
    if (out.length) options.push(fc.constantFrom(...out));
    if (types.includes('integer') && !types.includes('number')) options.push(fc.double({ min: -1e6, max: 1e6, noNaN: true, noDefaultInfinity: true }).filter((v) => !Number.isInteger(v)));
  }
  if (types.includes('string')) {
    if (s.maxLength !== undefined) options.push(fc.constantFrom('y'.repeat(s.maxLength + 1), '😀'.repeat(s.maxLength + 1)));
    else options.push(fc.constant('z'.repeat(200_000)));
    if (s.minLength) options.push(fc.constant(''.padEnd(s.minLength - 1, 'a')));
    if (s.pattern || s.format || s.enum) options.push(fc.constantFrom(...EDGE_STRINGS).filter((v) => !accepts(s, v)));
  }
  if (Array.isArray(s.enum)) options.push(fc.constantFrom('NOT_IN_ENUM', 'asc', '', ' ASC').filter((v) => !accepts(s, v)));
  if (types.includes('array')) {
    if (s.maxItems !== undefined && depth < 3) options.push(fc.array(valid(s.items ?? {}, name), { minLength: s.maxItems + 1, maxLength: s.maxItems + 2 }));
    if (s.items && depth < 4) options.push(fc.tuple(invalid(s.items, name, depth + 1)).filter(([v]) => v !== undefined).map(([v]) => [v]));
  }
  if (types.includes('object') && depth < 5) {
    const props: Record<string, JsonSchema> = s.properties ?? {};
    const required: string[] = (s.required ?? []).filter((k: string) => k in props);
    // (A nullable object's valid values include null: only objects are broken field by field.)
    const base = (valid(s, name, { optionalWeight: 7 }, depth + 1) as fc.Arbitrary<unknown>)
      .filter((o): o is Record<string, unknown> => o !== null && typeof o === 'object' && !Array.isArray(o));
    if (required.length) {
      options.push(fc.tuple(base, fc.constantFrom(...required)).map(([o, k]) => {
        const { [k]: _gone, ...rest } = o;
        return rest;
      }));
    }
    if (s.additionalProperties === false) options.push(base.map((o) => ({ ...o, not_a_field: 'x' })));
    const keys = Object.keys(props);
    if (keys.length) {
      options.push(fc.tuple(base, fc.constantFrom(...keys)).chain(([o, k]) => invalid(props[k], k, depth + 1).map((v) => (v === undefined ? o : { ...o, [k]: v }))));
    }
  }
  if (options.length === 0) return fc.constant(undefined);
  return fc.oneof(...options).filter((v) => v === undefined || !accepts(s, v));
}

/** JSON text that is not valid JSON, or that is valid but hostile in shape. */
export const GARBAGE_BODIES: string[] = [
  '{', '}', '[', '{"a":', '{"a" 1}', "{'a': 1}", 'undefined', 'NaN', '{"a": NaN}', '\u0000', '\ufeff{}',
  'null', 'true', '0', '-1', '"text"', '[]', '[1,2,3]', '{}', '{"__proto__": {"isAdmin": true}}', '{"constructor": {"prototype": {"isAdmin": true}}}',
  '[' .repeat(5000) + ']'.repeat(5000), '{"a":'.repeat(3000) + '1' + '}'.repeat(3000), JSON.stringify({ a: 'b'.repeat(100_000) }),
  '{"a": 1, "a": 2}', '{"a": 1e999}', '{"a": -0}', '{"a": "\\ud800"}', '{"a": "\\u0000"}',
];

/** Plain text fields make the safest edits; ids, secrets and flags the least safe. */
function rank(s: JsonSchema): number {
  const types = typesOf(s);
  if (types.includes('string') && !s.format && !s.pattern && !s.enum) return 0;
  if (types.includes('string')) return 1;
  if (types.includes('integer') || types.includes('number')) return 2;
  return 3;
}

/**
 * A deterministic, minimal valid value: required properties only, the first enum value,
 * the minimum, pool values for id-like fields, strings made unique by `n` where it helps.
 */
export function example(schema: JsonSchema | undefined, name = '', pools: Pools = {}, n = 0, depth = 0): unknown {
  if (!schema || typeof schema !== 'object') return 'x';
  const s = mergeAllOf(schema);
  if ('const' in s) return s.const;
  if (s.default !== undefined && depth > 0) return s.default;
  if (Array.isArray(s.enum)) {
    // An id-like enum (a doctype) takes the existing values in its pool, which other fields' pools may pair with (poolsFor).
    const fromPool = isIdName(name) ? (pools[name] ?? []).filter((v) => s.enum.includes(v)) : [];
    if (fromPool.length) return fromPool[n % fromPool.length];
    return s.enum.find((v: unknown) => v !== null) ?? s.enum[0];
  }
  if (Array.isArray(s.anyOf) || Array.isArray(s.oneOf)) {
    const members: JsonSchema[] = s.anyOf ?? s.oneOf;
    return example(members.find((m) => !typesOf(m).includes('null')) ?? members[0], name, pools, n, depth + 1);
  }
  const types = typesOf(s).filter((t) => t !== 'null');
  const pool = pools[name];
  switch (types[0]) {
    case 'boolean':
      return false;
    case 'integer': case 'number': {
      if (pool?.length && isIdName(name)) {
        const ok = pool.map(Number).filter((v) => accepts(s, v));
        if (ok.length) return ok[n % ok.length];
      }
      const { min, max } = numberBounds(s, types[0] === 'integer');
      const v = min !== undefined ? min : max !== undefined ? Math.min(max, 1) : 1;
      return v;
    }
    case 'string': {
      if (pool?.length && isIdName(name)) {
        const ok = pool.map(String).filter((v) => accepts(s, v));
        if (ok.length) return ok[n % ok.length];
      }
      const tag = `${Date.now().toString(36)}${n}`;
      let v: string;
      switch (s.format) {
        case 'email': v = `rel${tag}@example.com`; break;
        case 'date-time': v = new Date(1_800_000_000_000).toISOString(); break;
        case 'date': v = '2027-01-15'; break;
        case 'uri': case 'url': v = `https://example.com/${tag}`; break;
        case 'uuid': v = '6f9619ff-8b86-4d11-b42d-00c04fc964ff'; break;
        default: {
          if (typeof s.pattern === 'string') {
            const base = [`rel${tag}`.toLowerCase().replace(/[^a-z0-9]/g, ''), `rel_${tag}`.toLowerCase(), tag, 'en', 'abc', 'a', '1'];
            // Padded to minLength too: a token-like parameter then gets a candidate at once.
            const candidates = s.minLength ? [...base, ...base.map((c) => c.padEnd(s.minLength!, 'a'))] : base;
            const hit = candidates.find((c) => accepts(s, c));
            if (hit) return hit;
            try {
              return fc.sample(fc.stringMatching(new RegExp(s.pattern, 'u')).filter((x) => accepts(s, x)), { numRuns: 1, seed: n + 1 })[0];
            } catch {
              return tag;
            }
          }
          v = /password/i.test(name) ? `Passw0rd ${tag}` : `Reliability ${name || 'text'} ${tag}`;
        }
      }
      return clip(v, s.minLength, s.maxLength);
    }
    case 'array': {
      const count = Math.max(s.minItems ?? 0, 1);
      return Array.from({ length: Math.min(count, s.maxItems ?? count) }, (_, i) => example(s.items ?? {}, name, pools, n + i, depth + 1));
    }
    case 'object': {
      const props: Record<string, JsonSchema> = s.properties ?? {};
      const out: Record<string, unknown> = {};
      for (const k of s.required ?? []) if (k in props) out[k] = example(props[k], k, pools, n, depth + 1);
      // minProperties (a PATCH must change something): add optional fields, plain text ones first.
      const preferred = (k: string) => (/^(title|summary|introduction|description|about|notes|text|name|location)$/.test(k) ? -1 : /category|type|lang|namespace|parent|url|password|email/.test(k) ? 1 : 0);
      const optional = Object.keys(props).filter((k) => !(k in out)).sort((a, b) => preferred(a) - preferred(b) || rank(props[a]) - rank(props[b]));
      for (const k of optional) {
        if (Object.keys(out).length >= (s.minProperties ?? 0)) break;
        out[k] = example(props[k], k, pools, n, depth + 1);
      }
      return out;
    }
    default:
      return 'x';
  }
}
