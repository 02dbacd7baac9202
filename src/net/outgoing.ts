// The one way out: every request this server makes to another host goes through
// `outgoingRequest`. It
// - takes only http and https URLs;
// - refuses addresses that are not global (private, loopback, link-local, CGNAT, ULA,
//   multicast, documentation and reserved ranges, and IPv4-mapped forms of them) unless
//   the operator allows them (OUTGOING_ALLOW: addresses and CIDR ranges);
// - resolves the name once and connects to the address it checked (a `lookup` of its
//   own), and checks the socket's remote address once connected, so a name that answers
//   a public address to a check and a private one to the connection (DNS rebinding)
//   gets nowhere;
// - never follows redirects (a 3xx is answered as it is);
// - gives up after a wall-clock timeout (real time: sockets do not wait for the app's
//   clock) and aborts a body that grows beyond `maxBytes` while it streams in.
import http from 'node:http';
import https from 'node:https';
import dns from 'node:dns';
import net from 'node:net';

export type OutgoingErrorCode = 'bad_url' | 'refused_address' | 'timeout' | 'too_large' | 'network';

export class OutgoingRequestError extends Error {
  constructor(readonly code: OutgoingErrorCode, message: string) {
    super(message);
    this.name = 'OutgoingRequestError';
  }
}

export interface OutgoingOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Wall-clock limit of the whole exchange (connect, send, receive), in ms. Default 10 000. */
  timeoutMs?: number;
  /** Most bytes of response body read; beyond, the download is aborted. Default 1 MiB. */
  maxBytes?: number;
}

export interface OutgoingResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
  /** The address the request was sent to. */
  address: string;
}

/** The part of the configuration the guard reads. */
export interface OutgoingConfig {
  /** Addresses and CIDR ranges (IPv4 or IPv6) allowed although not global (OUTGOING_ALLOW). */
  outgoingAllow: string[];
}

const DEFAULT_TIMEOUT_MS = 10_000;
const DEFAULT_MAX_BYTES = 1024 * 1024;

// Ranges that are not globally reachable (IANA special-purpose registries).
const NON_GLOBAL_V4: Array<[string, number]> = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.88.99.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['198.51.100.0', 24],
  ['203.0.113.0', 24], ['224.0.0.0', 4], ['240.0.0.0', 4],
];
const NON_GLOBAL_V6: Array<[string, number]> = [
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['64:ff9b:1::', 48], ['100::', 64], ['2001::', 23], ['2001:db8::', 32],
  ['2002::', 16], ['fc00::', 7], ['fe80::', 10], ['fec0::', 10], ['ff00::', 8],
];

const nonGlobal = new net.BlockList();
for (const [a, p] of NON_GLOBAL_V4) nonGlobal.addSubnet(a, p, 'ipv4');
for (const [a, p] of NON_GLOBAL_V6) nonGlobal.addSubnet(a, p, 'ipv6');

/** `a.b.c.d` or `a.b.c.d/n` (IPv4 or IPv6); throws on anything else. Used by config.ts. */
export function parseAllowEntry(entry: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } {
  const [address, prefixText, extra] = entry.split('/');
  const version = net.isIP(address ?? '');
  if (!version || extra !== undefined) throw new Error(`OUTGOING_ALLOW: "${entry}" is not an IP address or CIDR range`);
  const max = version === 4 ? 32 : 128;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > max || (prefixText !== undefined && !/^\d+$/.test(prefixText))) throw new Error(`OUTGOING_ALLOW: bad prefix in "${entry}"`);
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** The 8 groups of an IPv6 address (an embedded dotted IPv4 tail included). */
function ipv6Groups(ip: string): number[] | null {
  let text = ip;
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    const v4 = text.slice(lastColon + 1);
    if (net.isIPv4(v4) === false) return null;
    const [a, b, c, d] = v4.split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}${(a * 256 + b).toString(16)}:${(c * 256 + d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const parse = (s: string) => (s ? s.split(':').map((x) => parseInt(x, 16)) : []);
  const head = parse(halves[0]);
  const tail = halves.length === 2 ? parse(halves[1]) : [];
  const fill = halves.length === 2 ? new Array(Math.max(0, 8 - head.length - tail.length)).fill(0) : [];
  const groups = [...head, ...fill, ...tail];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

/** The IPv4 address an IPv4-mapped IPv6 address (::ffff:a.b.c.d) stands for, else null. */
export function mappedIPv4(ip: string): string | null {
  const g = ipv6Groups(ip);
  if (!g || g.slice(0, 5).some((x) => x !== 0) || g[5] !== 0xffff) return null;
  return [g[6] >> 8, g[6] & 255, g[7] >> 8, g[7] & 255].join('.');
}

export interface AddressPolicy {
  /** True when a request may go to this IP address. */
  permits(ip: string): boolean;
}

const policies = new WeakMap<readonly string[], AddressPolicy>();

/** The policy of an allow list: global addresses, plus those the operator allows. */
export function addressPolicy(allow: readonly string[]): AddressPolicy {
  const known = policies.get(allow);
  if (known) return known;
  const allowed = new net.BlockList();
  for (const entry of allow) {
    const { address, prefix, family } = parseAllowEntry(entry);
    allowed.addSubnet(address, prefix, family);
  }
  const policy: AddressPolicy = {
    permits(raw: string) {
      const zone = raw.indexOf('%');
      const ip = zone < 0 ? raw : raw.slice(0, zone);
      const version = net.isIP(ip);
      if (!version) return false;
      if (version === 6) {
        const v4 = mappedIPv4(ip);
        if (v4) return allowed.check(v4, 'ipv4') || allowed.check(ip, 'ipv6') || !nonGlobal.check(v4, 'ipv4');
        return allowed.check(ip, 'ipv6') || !nonGlobal.check(ip, 'ipv6');
      }
      return allowed.check(ip, 'ipv4') || !nonGlobal.check(ip, 'ipv4');
    },
  };
  policies.set(allow, policy);
  return policy;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | dns.LookupAddress[], family?: number) => void;

/** A `lookup` for http(s).request that answers only permitted addresses. */
function guardedLookup(policy: AddressPolicy) {
  return (hostname: string, options: dns.LookupOptions, callback: LookupCallback) => {
    dns.lookup(hostname, { all: true, family: options.family ?? 0, hints: options.hints }, (err, addresses) => {
      if (err) return callback(err, '');
      const ok = addresses.filter((a) => policy.permits(a.address));
      if (!ok.length) {
        const refused: NodeJS.ErrnoException = new OutgoingRequestError('refused_address', `${hostname} resolves to ${addresses.map((a) => a.address).join(', ')}, which outgoing requests may not reach (OUTGOING_ALLOW).`);
        return callback(refused, '');
      }
      if (options.all) return callback(null, ok);
      return callback(null, ok[0].address, ok[0].family);
    });
  };
}

/**
 * Sends one request through the guard and answers its status, headers and body. Throws
 * `OutgoingRequestError` (code `bad_url`, `refused_address`, `timeout`, `too_large`,
 * `network`) when no answer could be had; any HTTP status, 3xx included, is an answer.
 */
export function outgoingRequest(config: OutgoingConfig, url: string | URL, options: OutgoingOptions = {}): Promise<OutgoingResponse> {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return Promise.reject(new OutgoingRequestError('bad_url', 'Not a URL.'));
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return Promise.reject(new OutgoingRequestError('bad_url', 'Only http and https URLs may be requested.'));
  const policy = addressPolicy(config.outgoingAllow);
  const host = target.hostname.startsWith('[') ? target.hostname.slice(1, -1) : target.hostname;
  if (net.isIP(host) && !policy.permits(host)) return Promise.reject(new OutgoingRequestError('refused_address', `${host} is not an address outgoing requests may reach (OUTGOING_ALLOW).`));
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const body = options.body === undefined ? undefined : Buffer.isBuffer(options.body) ? options.body : Buffer.from(options.body);
  const headers: Record<string, string> = { ...(options.headers ?? {}) };
  if (body) headers['content-length'] = String(body.length);

  return new Promise<OutgoingResponse>((resolve, reject) => {
    let settled = false;
    const finish = (err: Error | null, value?: OutgoingResponse) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (err) reject(err instanceof OutgoingRequestError ? err : new OutgoingRequestError('network', err.message || String(err)));
      else resolve(value!);
    };
    const send = target.protocol === 'https:' ? https.request : http.request;
    const req = send(target, {
      method: options.method ?? 'GET',
      headers,
      agent: false,
      lookup: guardedLookup(policy) as unknown as typeof dns.lookup,
    });
    /** Settles with `err` first, then tears the connection down (its own errors come too late to count). */
    const fail = (err: OutgoingRequestError) => {
      finish(err);
      req.destroy();
    };
    const timer = setTimeout(() => fail(new OutgoingRequestError('timeout', `No complete answer within ${timeoutMs} ms.`)), timeoutMs);
    req.on('socket', (socket) => {
      socket.once('connect', () => {
        const remote = socket.remoteAddress;
        if (!remote || !policy.permits(remote)) fail(new OutgoingRequestError('refused_address', `Connected to ${remote ?? 'an unknown address'}, which outgoing requests may not reach.`));
      });
    });
    req.on('error', (err) => finish(err));
    req.on('response', (res) => {
      const declared = Number(res.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        fail(new OutgoingRequestError('too_large', `The answer declares ${declared} bytes, more than ${maxBytes}.`));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) {
          fail(new OutgoingRequestError('too_large', `The answer is larger than ${maxBytes} bytes.`));
          return;
        }
        chunks.push(chunk);
      });
      res.on('error', (err) => finish(err));
      res.on('aborted', () => finish(new OutgoingRequestError('network', 'The answer was cut off.')));
      res.on('end', () => finish(null, { status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), address: res.socket?.remoteAddress ?? '' }));
    });
    req.end(body);
  });
}
