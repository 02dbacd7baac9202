// Every response passes here: `Content-Type: application/json` exactly (a real client
// reads the body only on that value), `?pretty` indents, `?format=xml` or
// `Accept: application/xml` turns a GET's JSON into XML.
import type { FastifyReply, FastifyRequest } from 'fastify';

function queryOf(url: string): URLSearchParams | null {
  const i = url.indexOf('?');
  return i < 0 ? null : new URLSearchParams(url.slice(i + 1));
}

export function wantsXml(request: FastifyRequest, query: URLSearchParams | null): boolean {
  if (request.method !== 'GET') return false;
  if (query?.get('format') === 'xml') return true;
  const accept = request.headers.accept;
  return typeof accept === 'string' && /\b(application|text)\/xml\b/.test(accept) && !/^\s*application\/json/.test(accept);
}

// A key becomes the element's name when it is an XML name (and not reserved: `xml...`),
// and not a name every JavaScript object has (XML readers refuse `<__proto__>`).
const XML_NAME = /^(?![Xx][Mm][Ll])[A-Za-z_][\w.-]*$/;
const OBJECT_NAMES = new Set([...Object.getOwnPropertyNames(Object.prototype), 'prototype']);
const asElementName = (key: string) => XML_NAME.test(key) && !OBJECT_NAMES.has(key);
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const XML_INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text XML 1.0 can carry (control characters and lone surrogates become U+FFFD), escaped. */
function xmlText(value: string): string {
  return value.replace(XML_INVALID, '\ufffd').replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/**
 * JSON as XML, every name recoverable and every value distinguishable (docs/clients.md,
 * "Conventions"): a key that is an XML name is the element's name (`<title>`); any other key
 * (`Barcode Scanner`, `140x105`, `__proto__`, `toString`) is `<item key="...">`; an array is
 * `type="array"` with an `<item>` per element; an object with no fields `type="object"`;
 * null `nil="true"`; a string, number or boolean its text (`""`: an empty element).
 * Iterative, so any depth of data is written.
 */
export function toXml(value: unknown): string {
  const out: string[] = ['<?xml version="1.0" encoding="UTF-8"?>\n'];
  // Each entry: text to write as it is, or an element to open.
  const stack: Array<string | { name: string; key?: string; value: unknown }> = [{ name: 'response', value }];
  while (stack.length) {
    const next = stack.pop()!;
    if (typeof next === 'string') {
      out.push(next);
      continue;
    }
    const { name, key, value: v } = next;
    let open = `<${name}${key === undefined ? '' : ` key="${xmlText(key)}"`}`;
    if (v === null || v === undefined) {
      out.push(`${open} nil="true"/>`);
    } else if (Array.isArray(v)) {
      open += ' type="array"';
      if (v.length === 0) out.push(`${open}/>`);
      else {
        out.push(`${open}>`);
        stack.push(`</${name}>`);
        for (let i = v.length - 1; i >= 0; i--) stack.push({ name: 'item', value: v[i] });
      }
    } else if (typeof v === 'object') {
      const entries = Object.entries(v as Record<string, unknown>);
      if (entries.length === 0) out.push(`${open} type="object"/>`);
      else {
        out.push(`${open}>`);
        stack.push(`</${name}>`);
        for (let i = entries.length - 1; i >= 0; i--) {
          const [k, x] = entries[i];
          stack.push(asElementName(k) ? { name: k, value: x } : { name: 'item', key: k, value: x });
        }
      }
    } else {
      out.push(`${open}>${xmlText(String(v))}</${name}>`);
    }
  }
  return out.join('');
}

/**
 * Whether the hook below rewrites a JSON body (XML, `?pretty`): the one statement of its
 * rules, for whoever sends prepared bytes (the guide cache sends a string then).
 */
export function outputRewritesBody(request: FastifyRequest): boolean {
  const query = queryOf(request.url);
  return wantsXml(request, query) || query?.has('pretty') === true;
}

/** The body in the output format asked for (called by the one onSend hook, app.ts). */
export function formatOutput(request: FastifyRequest, reply: FastifyReply, payload: unknown): unknown {
  const type = reply.getHeader('content-type');
  if (typeof type !== 'string' || !type.startsWith('application/json')) return payload;
  reply.header('content-type', 'application/json');
  // Only strings are rewritten: kept bytes (Buffers) are sent as a string when a rewrite is asked for.
  if (typeof payload !== 'string' || payload === '' || (!request.url.includes('?') && request.headers.accept === undefined)) return payload;
  const query = queryOf(request.url);
  if (wantsXml(request, query)) {
    reply.header('content-type', 'application/xml');
    return toXml(JSON.parse(payload));
  }
  if (query?.has('pretty')) return JSON.stringify(JSON.parse(payload), null, 2);
  return payload;
}
