// Request ids (Fastify's `genReqId`; the X-Request-Id header and `request_id` of every error):
// unique within a process by a counter, and across processes and restarts by a random prefix
// drawn when the process starts (74 random bits), in the 8-4-4-4-12 form of the random UUIDs
// they replace. `randomUUID` drew 16 random bytes a request, refilling its cache of them every
// 128 requests, about 0.13 µs a request on the floor's profile (BENCHMARKS.md). An id
// correlates a request with its log lines; it is no secret, so a guessable one is no loss.
import { randomUUID } from 'node:crypto';

/** A generator of request ids: `xxxxxxxx-xxxx-4xxx-yxxx-` of a random UUID, then a 48-bit counter in hex. */
export function requestIds(): () => string {
  const prefix = randomUUID().slice(0, 24);
  let next = 0;
  return () => prefix + (next++ % 2 ** 48).toString(16).padStart(12, '0');
}
