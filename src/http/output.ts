// Every response passes here: `Content-Type: application/json` exactly (a real client
// reads the body only on that value), `?pretty` indents, `?format=xml` or
// `Accept: application/xml` turns a GET's JSON into XML.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { XMLBuilder } from 'fast-xml-parser';

const xml = new XMLBuilder({ ignoreAttributes: true, format: false, suppressEmptyNode: false });

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

const XML_NAME = /^[A-Za-z_][A-Za-z0-9_.-]*$/;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const XML_INVALID = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** JSON to a shape the XML builder writes well: arrays as <item> lists, safe element names. */
function toXmlValue(value: unknown): unknown {
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.length ? { item: value.map(toXmlValue) } : '';
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[XML_NAME.test(k) ? k : `_${k.replace(/[^A-Za-z0-9_.-]/g, '_')}`] = toXmlValue(v);
    return out;
  }
  // The builder escapes & < > " ' itself (escaping here too gave "&amp;lt;" for "<"); text
  // XML 1.0 cannot carry (control characters, lone surrogates) becomes U+FFFD.
  if (typeof value === 'string') return value.replace(XML_INVALID, '\ufffd');
  return value;
}

export function toXml(value: unknown): string {
  return '<?xml version="1.0" encoding="UTF-8"?>\n' + xml.build({ response: toXmlValue(value) });
}

export function registerOutputFormats(app: FastifyInstance) {
  app.addHook('onSend', async (request, reply, payload) => {
    const type = reply.getHeader('content-type');
    if (typeof type !== 'string' || !type.startsWith('application/json')) return payload;
    reply.header('content-type', 'application/json');
    if (typeof payload !== 'string' || payload === '') return payload;
    const query = queryOf(request.url);
    if (wantsXml(request, query)) {
      reply.header('content-type', 'application/xml');
      return toXml(JSON.parse(payload));
    }
    if (query?.has('pretty')) return JSON.stringify(JSON.parse(payload), null, 2);
    return payload;
  });
}
