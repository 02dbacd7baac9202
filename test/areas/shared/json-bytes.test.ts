// The bytes of an array under a key, and an empty array replaced by such bytes
// (src/areas/shared/json-bytes.ts): found by bytes alone in JSON as JSON.stringify and the
// response serializers write it, whatever the strings hold.
import { describe, expect, it } from 'vitest';
import { arrayBytes, withArrayBytes } from '../../../src/areas/shared/json-bytes.js';

const bytes = (v: unknown) => Buffer.from(JSON.stringify(v));
const tricky = [
  { title: 'Quotes " and "steps":[ in a string', lines: [{ text: 'a ] b } c [ d {' }, { text: 'back\\slash\\', more: ['\\"', '"]', '\\\\'] }] },
  { title: 'Ünïcödé ✓ 𝄞 and \u0000 control \n chars', lines: [] },
  [[[]], {}, { steps: 'not an array' }],
];

describe('arrayBytes', () => {
  it('answers exactly the bytes of the array, whatever its strings and nesting hold', () => {
    const record = { guideid: 1, title: 'A "title" with [brackets]', steps: tricky, after: { x: [1, 2] }, summary: '"steps":[]' };
    const found = arrayBytes(bytes(record), 'steps')!;
    expect(found.toString()).toBe(JSON.stringify(tricky));
    expect(JSON.parse(found.toString())).toEqual(tricky);
    expect(arrayBytes(bytes({ steps: [] }), 'steps')!.toString()).toBe('[]');
  });

  it('answers nothing when the key is not there once, is not an array, or the JSON is cut short', () => {
    expect(arrayBytes(bytes({ steps: 'x' }), 'steps')).toBeUndefined();
    expect(arrayBytes(bytes({ other: [1] }), 'steps')).toBeUndefined();
    expect(arrayBytes(bytes({ a: { steps: [1] }, steps: [2] }), 'steps')).toBeUndefined();
    expect(arrayBytes(Buffer.from('{"steps":[{"a":"]"}'), 'steps')).toBeUndefined();
  });
});

describe('withArrayBytes', () => {
  it('puts the bytes in place of the empty array, giving what serializing the whole would', () => {
    const record = { guideid: 1, steps: [] as unknown[], summary: 'after', list: [] };
    const whole = withArrayBytes(bytes(record), 'steps', bytes(tricky))!;
    expect(whole.toString()).toBe(JSON.stringify({ ...record, steps: tricky }));
  });

  it('answers nothing unless the empty array is there once', () => {
    expect(withArrayBytes(bytes({ steps: [1] }), 'steps', bytes(tricky))).toBeUndefined();
    expect(withArrayBytes(bytes({ a: { steps: [] }, steps: [] }), 'steps', bytes(tricky))).toBeUndefined();
    expect(withArrayBytes(bytes({ steps: '"steps":[]' }), 'steps', bytes(tricky))).toBeUndefined();
  });
});

describe('an array put in by withArrayBytes', () => {
  it('is found again where it was put, with no scan of what is around it', () => {
    const record = { before: 'x', steps: [] as unknown[], after: 'y' };
    const whole = withArrayBytes(bytes(record), 'steps', bytes(tricky))!;
    expect(arrayBytes(whole, 'steps')!.toString()).toBe(JSON.stringify(tricky));
    // A copy of the same bytes is scanned, and finds the same.
    expect(arrayBytes(Buffer.from(whole), 'steps')!.toString()).toBe(JSON.stringify(tricky));
  });
});
