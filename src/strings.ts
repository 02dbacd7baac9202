// String helpers that a regular expression would make super-linear: `/-+$/` rescans a run
// from each of its positions when the run is not at the end (quadratic on long runs).

/** `s` without the `ch` characters at its end. */
export function trimEndChar(s: string, ch: string): string {
  let end = s.length;
  while (end > 0 && s[end - 1] === ch) end--;
  return s.slice(0, end);
}

/** `s` without the `ch` characters at either end. */
export function trimChar(s: string, ch: string): string {
  let start = 0;
  while (start < s.length && s[start] === ch) start++;
  return trimEndChar(s.slice(start), ch);
}
