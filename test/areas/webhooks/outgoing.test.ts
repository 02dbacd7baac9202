// The outgoing-request guard (src/net/outgoing.ts): every refusal happens before any byte
// leaves (a local server counts what reaches it), and what is allowed works.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addressPolicy, mappedIPv4, outgoingRequest, OutgoingRequestError } from '../../../src/net/outgoing.js';
import { loadConfig } from '../../../src/config.js';

let server: Server;
let base: string;
let port: number;
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    if (req.url === '/redirect') {
      res.writeHead(302, { location: `${base}/target` });
      res.end();
    } else if (req.url === '/big') {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      // Chunked, no content-length: the guard must count as it reads.
      const chunk = Buffer.alloc(64 * 1024, 120);
      let sent = 0;
      const pump = () => {
        while (sent < 64) {
          sent++;
          if (!res.write(chunk)) break;
        }
        if (sent < 64) res.once('drain', pump);
        else res.end();
      };
      pump();
    } else if (req.url === '/declared-big') {
      res.writeHead(200, { 'content-length': String(10_000_000) });
      res.write('x');
    } else if (req.url === '/hang') {
      // Never answers.
    } else {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', () => {
        res.writeHead(201, { 'content-type': 'application/json', 'x-echo': req.method ?? '' });
        res.end(JSON.stringify({ got: body }));
      });
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const closed = { outgoingAllow: [] as string[] };
const loopback = { outgoingAllow: ['127.0.0.1'] };

async function refusal(p: Promise<unknown>): Promise<OutgoingRequestError> {
  const err = await p.then(() => null, (e: unknown) => e);
  expect(err).toBeInstanceOf(OutgoingRequestError);
  return err as OutgoingRequestError;
}

describe('addresses', () => {
  it('refuses every non-global range and their IPv4-mapped forms; global addresses pass', () => {
    const p = addressPolicy([]);
    for (const ip of ['0.0.0.0', '0.1.2.3', '10.1.2.3', '100.64.0.1', '100.127.255.255', '127.0.0.1', '127.9.9.9', '169.254.169.254', '172.16.0.1', '172.31.255.255', '192.168.1.1', '192.0.2.1', '198.18.0.1', '224.0.0.1', '255.255.255.255',
      '::', '::1', 'fc00::1', 'fd12:3456::1', 'fe80::1', 'fe80::1%eth0', 'ff02::1', '::ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '2001:db8::1', '64:ff9b::a00:1', '2002:7f00:1::1']) {
      expect(p.permits(ip), ip).toBe(false);
    }
    for (const ip of ['8.8.8.8', '1.1.1.1', '100.63.255.255', '100.128.0.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(p.permits(ip), ip).toBe(true);
    expect(p.permits('not an ip')).toBe(false);
  });

  it('an allowance lets exactly its addresses or ranges through', () => {
    const p = addressPolicy(['127.0.0.1', '10.20.0.0/16', 'fd00::/8']);
    expect(p.permits('127.0.0.1')).toBe(true);
    expect(p.permits('::ffff:127.0.0.1')).toBe(true);
    expect(p.permits('127.0.0.2')).toBe(false);
    expect(p.permits('10.20.5.5')).toBe(true);
    expect(p.permits('10.21.0.1')).toBe(false);
    expect(p.permits('fd00::5')).toBe(true);
    expect(p.permits('::1')).toBe(false);
    expect(mappedIPv4('::ffff:c0a8:101')).toBe('192.168.1.1');
    expect(mappedIPv4('2606:4700::1')).toBeNull();
  });

  it('OUTGOING_ALLOW is read and checked at start', () => {
    expect(loadConfig({ OUTGOING_ALLOW: '127.0.0.1, 10.0.0.0/8' }).outgoingAllow).toEqual(['127.0.0.1', '10.0.0.0/8']);
    expect(loadConfig({}).outgoingAllow).toEqual([]);
    expect(() => loadConfig({ OUTGOING_ALLOW: 'example.com' })).toThrow(/OUTGOING_ALLOW/);
    expect(() => loadConfig({ OUTGOING_ALLOW: '10.0.0.0/33' })).toThrow(/OUTGOING_ALLOW/);
  });
});

describe('outgoingRequest', () => {
  it('sends to an allowed address and answers status, headers and body', async () => {
    const res = await outgoingRequest(loopback, `${base}/echo`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hello' });
    expect(res.status).toBe(201);
    expect(res.headers['x-echo']).toBe('POST');
    expect(JSON.parse(res.body.toString())).toEqual({ got: 'hello' });
    expect(res.address).toBe('127.0.0.1');
  });

  it('refuses loopback, private, link-local and mapped addresses without the allowance, before connecting', async () => {
    const before = hits.length;
    for (const url of [`${base}/x`, `http://[::1]:${port}/x`, `http://[::ffff:127.0.0.1]:${port}/x`, 'http://10.0.0.1/x', 'http://169.254.169.254/latest/meta-data', 'http://100.64.0.1/', 'http://0.0.0.0/', 'http://[fc00::1]/', 'http://[fe80::1]/', 'http://192.168.0.1/']) {
      expect((await refusal(outgoingRequest(closed, url))).code, url).toBe('refused_address');
    }
    expect(hits.length).toBe(before);
  });

  it('refuses a name that resolves to loopback, unless allowed', async () => {
    const before = hits.length;
    const err = await refusal(outgoingRequest(closed, `http://localhost:${port}/named`));
    expect(err.code).toBe('refused_address');
    expect(hits.length).toBe(before);
    // localhost may resolve to ::1 first: the guard connects to an allowed address among those it resolved.
    const res = await outgoingRequest(loopback, `http://localhost:${port}/named`, { method: 'POST', body: '' });
    expect(res.status).toBe(201);
    expect(res.address).toBe('127.0.0.1');
  });

  it('takes only http and https', async () => {
    for (const url of ['ftp://127.0.0.1/x', 'file:///etc/passwd', 'gopher://127.0.0.1/', 'not a url']) {
      expect((await refusal(outgoingRequest(loopback, url))).code, url).toBe('bad_url');
    }
  });

  it('does not follow redirects', async () => {
    const before = hits.filter((h) => h === '/target').length;
    const res = await outgoingRequest(loopback, `${base}/redirect`);
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`${base}/target`);
    expect(hits.filter((h) => h === '/target').length).toBe(before);
  });

  it('aborts a body larger than maxBytes, streamed or declared', async () => {
    expect((await refusal(outgoingRequest(loopback, `${base}/big`, { maxBytes: 100_000 }))).code).toBe('too_large');
    expect((await refusal(outgoingRequest(loopback, `${base}/declared-big`, { maxBytes: 100_000 }))).code).toBe('too_large');
    // Under the cap the same body is read whole.
    const whole = await outgoingRequest(loopback, `${base}/big`, { maxBytes: 8 * 1024 * 1024 });
    expect(whole.body.length).toBe(64 * 64 * 1024);
  });

  it('gives up after its wall-clock timeout', async () => {
    const started = Date.now();
    const err = await refusal(outgoingRequest(loopback, `${base}/hang`, { timeoutMs: 300 }));
    expect(err.code).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});
