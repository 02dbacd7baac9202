// The response serializers (src/http/serializers.ts): a nullable field, and a union of an
// array and an object, are written with a type test instead of an Ajv validation, and the
// bytes are those the schema as declared gives, for records whose nullable fields are
// null, set, or some of each.
import { describe, expect, it } from 'vitest';
import fastJsonStringify from 'fast-json-stringify';
import { Type } from '@sinclair/typebox';
import { serializerCompiler, serializerSchema } from '../../../src/http/serializers.js';
import { Nullable } from '../../../src/http/schemas.js';
import { FullGuide, LightGuide } from '../../../src/areas/guides/guides.schemas.js';
import { Comment } from '../../../src/areas/comments/comments.schemas.js';

type Schema = Record<string, any>;

/**
 * A value of `schema`. Each nullable field (and each branch of a union) is chosen by
 * `pick`, called once per choice in document order: all null, all set, or alternating.
 */
function sampleOf(schema: Schema, pick: () => number): unknown {
  const branches: Schema[] | undefined = schema.anyOf ?? schema.oneOf;
  if (branches) return sampleOf(branches[pick() % branches.length], pick);
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[pick() % schema.enum.length];
  const type = Array.isArray(schema.type) ? schema.type[pick() % schema.type.length] : schema.type;
  switch (type) {
    case 'object': return Object.fromEntries(Object.entries(schema.properties ?? {}).map(([k, s]) => [k, sampleOf(s as Schema, pick)]));
    case 'array': return [sampleOf(schema.items, pick), sampleOf(schema.items, pick)];
    case 'string': return schema.format === 'date-time' ? '2026-11-29T10:00:00Z' : 'a "quoted" text, é ✓ \n';
    case 'integer': return 42;
    case 'number': return 1.5;
    case 'boolean': return true;
    case 'null': return null;
    default: return 'anything';
  }
}

const picks: Record<string, () => () => number> = {
  'every choice first (set, not null)': () => () => 0,
  'every choice second (null)': () => () => 1,
  'alternating': () => { let n = 0; return () => n++; },
  'every third': () => { let n = 0; return () => Number(n++ % 3 === 0); },
};

describe('serializerSchema', () => {
  it('writes a nullable plain field as a list of types, and leaves the declared schema as it was', () => {
    const schema = Type.Object({
      id: Nullable(Type.Integer({ description: 'An id.' })),
      name: Nullable(Type.String({ maxLength: 9 })),
      image: Nullable(Type.Object({ id: Type.Integer(), url: Type.String() })),
      tags: Nullable(Type.Array(Type.String())),
    });
    const before = JSON.stringify(schema);
    const out = serializerSchema(schema) as Schema;
    expect(JSON.stringify(schema)).toBe(before);
    expect(out.properties.id).toEqual({ type: ['integer', 'null'], description: 'An id.' });
    expect(out.properties.name).toEqual({ type: ['string', 'null'], maxLength: 9 });
    expect(out.properties.image.type).toEqual(['object', 'null']);
    expect(out.properties.image.properties.url).toEqual({ type: 'string' });
    expect(out.properties.tags).toEqual({ type: ['array', 'null'], items: { type: 'string' } });
  });

  it('leaves unions of several shapes, literals and properties named like keywords as they are', () => {
    const union = Type.Union([Type.Object({ a: Type.Integer() }), Type.Object({ b: Type.String() })]);
    const literal = Type.Union([Type.Literal('x'), Type.Null()]);
    const threeWays = Type.Union([Type.String(), Type.Integer(), Type.Null()]);
    const out = serializerSchema(Type.Object({ union, literal, threeWays, anyOf: Type.String() })) as Schema;
    expect(out.properties.union).toEqual(JSON.parse(JSON.stringify(union)));
    expect(out.properties.literal).toEqual(JSON.parse(JSON.stringify(literal)));
    expect(out.properties.threeWays).toEqual(JSON.parse(JSON.stringify(threeWays)));
    expect(out.properties.anyOf).toEqual({ type: 'string' });
  });

  it('writes a union of an array and an object (and null) as a list of types, with the bytes the declared union gives', () => {
    const media = Type.Union([Type.Array(Type.Object({ id: Type.Integer() })), Type.Object({ videoid: Type.Integer() }, { additionalProperties: false })], { description: 'Images or a video.' });
    const withNull = Type.Union([Type.Array(Type.String()), Type.Object({ a: Type.String() }), Type.Null()]);
    // Each branch's own description is an annotation, not a keyword they share.
    const annotated = Type.Union([Type.Array(Type.String(), { description: 'x' }), Type.Object({ a: Type.String() }, { additionalProperties: false, description: 'y' })]);
    const out = serializerSchema(Type.Object({ media, withNull, annotated })) as Schema;
    expect(out.properties.media).toEqual({ type: ['array', 'object'], description: 'Images or a video.', items: { type: 'object', properties: { id: { type: 'integer' } }, required: ['id'] }, properties: { videoid: { type: 'integer' } }, required: ['videoid'], additionalProperties: false });
    expect(out.properties.withNull.type).toEqual(['array', 'object', 'null']);
    expect(out.properties.annotated.type).toEqual(['array', 'object']);
    const write = fastJsonStringify(out);
    const declared = fastJsonStringify(Type.Object({ media, withNull, annotated }) as Schema);
    for (const value of [
      { media: [{ id: 1 }, { id: 2 }], withNull: null, annotated: ['x'] },
      { media: { videoid: 7 }, withNull: ['s'], annotated: { a: 'b' } },
      { media: [], withNull: { a: 'c' }, annotated: [] },
    ]) expect(write(value)).toBe(declared(value));
  });

  it('leaves a full guide with only its comments\' media to validate (88 validators before, then 4 with its steps\' media)', () => {
    const refsOf = (schema: unknown) => {
      const { code } = fastJsonStringify(schema as Schema, { mode: 'debug' }) as unknown as { code: string };
      return new Set(code.match(/getSchemaValidator\("[^"]*"\)/g) ?? []);
    };
    expect(refsOf(FullGuide).size).toBeGreaterThan(80);
    const left = [...refsOf(serializerSchema(FullGuide))];
    expect(left).toHaveLength(2);
    for (const ref of left) expect(ref).toMatch(/\/comments\/items\/properties\/media\/items\/anyOf\/[01]"/);
  });
});

describe('the serializers', () => {
  const compile = serializerCompiler();
  for (const [name, schema] of Object.entries({ 'a full guide': FullGuide, 'a light guide': LightGuide, 'a comment': Comment, 'a list of light guides': Type.Array(LightGuide) })) {
    for (const [how, pick] of Object.entries(picks)) {
      it(`write ${name} as the declared schema does, ${how}`, () => {
        const value = sampleOf(JSON.parse(JSON.stringify(schema)), pick());
        const expected = fastJsonStringify(schema as Schema)(value);
        expect(compile({ schema })(value)).toBe(expected);
        expect(JSON.parse(expected)).toEqual(value);
      });
    }
  }

  it('compile one serializer per distinct schema', () => {
    const compileOnce = serializerCompiler();
    expect(compileOnce({ schema: JSON.parse(JSON.stringify(FullGuide)) })).toBe(compileOnce({ schema: FullGuide }));
  });
});
