// Byte-level work on JSON this server serialized itself: the bytes of the array under an
// object key, and putting such bytes in place of an empty array. A guide edit that changes
// no step answers the new record with the steps' bytes of the record it kept, instead of
// parsing them out of it (37 KB on average) and serializing them again (guides.changes.ts).
//
// A key can be found by its bytes alone: inside a JSON string every quote is escaped (`\"`),
// so `"key":[` occurs only where an object has that key. Both functions ask that it occur
// once, and answer undefined otherwise; their callers then fall back to parsing.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPENS = new Set([0x5b, 0x7b]); // [ {
const CLOSES = new Set([0x5d, 0x7d]); // ] }

/** Where `marker` occurs in `json` if it occurs exactly once, else -1. */
function onlyAt(json: Buffer, marker: Buffer): number {
  const at = json.indexOf(marker);
  return at >= 0 && json.indexOf(marker, at + 1) < 0 ? at : -1;
}

/** The bytes of the array under `"key":` (from its `[` to its `]`), when the key occurs once in `json`. */
export function arrayBytes(json: Buffer, key: string): Buffer | undefined {
  const marker = Buffer.from(`"${key}":[`);
  const at = onlyAt(json, marker);
  if (at < 0) return undefined;
  const start = at + marker.length - 1;
  let depth = 0;
  for (let i = start; i < json.length; i++) {
    const c = json[i];
    if (c === QUOTE) {
      // A string: to its closing quote, every escaped character skipped (bytes of UTF-8's
      // multi-byte characters are all 0x80 or above, never a quote or a backslash).
      for (i++; i < json.length && json[i] !== QUOTE; i++) if (json[i] === BACKSLASH) i++;
    } else if (OPENS.has(c)) depth++;
    else if (CLOSES.has(c) && --depth === 0) return json.subarray(start, i + 1);
  }
  return undefined;
}

/** `json` with `array` (an array's bytes) in place of the empty array under `"key":`, when that occurs once in `json`. */
export function withArrayBytes(json: Buffer, key: string, array: Buffer): Buffer | undefined {
  const marker = Buffer.from(`"${key}":[]`);
  const at = onlyAt(json, marker);
  if (at < 0) return undefined;
  const cut = at + marker.length - 2;
  return Buffer.concat([json.subarray(0, cut), array, json.subarray(cut + 2)]);
}
