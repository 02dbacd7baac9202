// Content codings a request accepts (RFC 9110 12.5.3): the server compresses nothing on
// the fly, but bytes it already holds compressed (a stored guide record: guides.stored.ts)
// go out as they are to a client that takes gzip, a quarter to an eighth of their size.

/**
 * Whether `Accept-Encoding` allows gzip: `gzip` (or `x-gzip`) with a q-value above 0, or
 * `*` above 0 when gzip is not named. No header, or an empty one: identity only (a client
 * that sends nothing is sent nothing it must decode, though the RFC would allow it).
 * One pass over the header's parts: linear in its length.
 */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  if (typeof header !== 'string' || header === '') return false;
  let gzip: boolean | undefined;
  let any = false;
  for (const part of header.split(',')) {
    const semi = part.indexOf(';');
    const coding = (semi < 0 ? part : part.slice(0, semi)).trim().toLowerCase();
    if (coding !== 'gzip' && coding !== 'x-gzip' && coding !== '*') continue;
    const allowed = semi < 0 || qValue(part.slice(semi + 1)) > 0;
    if (coding === '*') any = allowed;
    else gzip = (gzip ?? false) || allowed;
  }
  return gzip ?? any;
}

/** The `q` parameter among `params` (`;`-separated), 1 when absent; an unreadable one counts as 0. */
function qValue(params: string): number {
  for (const param of params.split(';')) {
    const eq = param.indexOf('=');
    if (eq < 0 || param.slice(0, eq).trim().toLowerCase() !== 'q') continue;
    const value = param.slice(eq + 1).trim();
    // RFC 9110 12.4.2: "0" to "1" with at most three decimals.
    return /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(value) ? Number(value) : 0;
  }
  return 1;
}
