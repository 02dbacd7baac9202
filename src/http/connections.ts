// What the HTTP server does below the routes: how long a client may take to send a
// request, and the answer to a request Node itself refuses (too slow, malformed,
// headers too large), in the one error shape.
import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyServerOptions } from 'fastify';
import type { Config } from '../config.js';

/**
 * A request whose headers or whole body have not arrived in time is answered 408 and its
 * connection closed (a body trickling in a byte at a time would otherwise hold the
 * connection, and its buffers, for as long as the client likes). Node looks for such
 * requests every `timeoutCheckIntervalMs`, so one may last up to that much longer.
 */
export function connectionOptions(config: Config): Partial<FastifyServerOptions> {
  return {
    requestTimeout: config.requestTimeoutMs,
    http: {
      requestTimeout: config.requestTimeoutMs,
      headersTimeout: config.headersTimeoutMs,
      connectionsCheckingInterval: config.timeoutCheckIntervalMs,
    },
    clientErrorHandler: answerClientError,
  } as Partial<FastifyServerOptions>;
}

const CLIENT_ERRORS: Record<string, [number, string, string]> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'request_timeout', 'The request did not arrive in time.'],
  HPE_HEADER_OVERFLOW: [431, 'headers_too_large', 'The request headers are too large.'],
};

function answerClientError(err: NodeJS.ErrnoException, socket: Socket) {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message] = CLIENT_ERRORS[err.code ?? ''] ?? [400, 'bad_request', 'The request is malformed.'];
  const body = JSON.stringify({ error: true, message, msg: message, code, request_id: randomUUID() });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Content-Type-Options: nosniff\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(err);
}
