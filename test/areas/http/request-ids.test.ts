// Request ids (src/http/request-ids.ts): in the form of a random UUID, distinct within a
// process by a counter and between processes by each one's random prefix.
import { describe, expect, it } from 'vitest';
import { requestIds } from '../../../src/http/request-ids.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

describe('request ids', () => {
  it('are UUID-shaped and distinct within a process and between processes', () => {
    const first = requestIds();
    const ids = Array.from({ length: 10_000 }, () => first());
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of [ids[0], ids[1], ids[9_999]]) expect(id).toMatch(UUID);
    const other = requestIds()();
    expect(other).toMatch(UUID);
    expect(other.slice(0, 24), 'another process draws another prefix').not.toBe(ids[0].slice(0, 24));
    expect(ids).not.toContain(other);
  });
});
