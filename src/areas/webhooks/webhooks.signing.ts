// The two signatures of a delivery, both keyed with the subscription's secret:
// - `x-webhook-secret`: a JWT (HS256) with `iat`, `exp` (5 minutes later), `jti` (the
//   delivery id) and `body_sha256` (hex SHA-256 of the exact body bytes);
// - Standard Webhooks: `webhook-id` (the delivery id, the same on every retry),
//   `webhook-timestamp` and `webhook-signature: v1,<base64 HMAC-SHA256 of id.timestamp.body>`
//   keyed with the secret's bytes (`new Webhook(secretKey, { format: 'raw' })` verifies).
// Times are the wall clock's: receivers compare them with theirs.
import { createHash, createHmac } from 'node:crypto';

export const JWT_LIFETIME_SECONDS = 300;

const b64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');

export function signedHeaders(secret: string, deliveryId: string, body: string, wallSeconds: number): Record<string, string> {
  const key = Buffer.from(secret, 'utf8');
  const header = b64url(JSON.stringify({ alg: 'HS256', typ: 'JWT' }));
  const claims = b64url(JSON.stringify({
    iat: wallSeconds,
    exp: wallSeconds + JWT_LIFETIME_SECONDS,
    jti: deliveryId,
    body_sha256: createHash('sha256').update(body, 'utf8').digest('hex'),
  }));
  const jwt = `${header}.${claims}.${createHmac('sha256', key).update(`${header}.${claims}`).digest('base64url')}`;
  const signature = createHmac('sha256', key).update(`${deliveryId}.${wallSeconds}.${body}`, 'utf8').digest('base64');
  return {
    'x-webhook-secret': jwt,
    'webhook-id': deliveryId,
    'webhook-timestamp': String(wallSeconds),
    'webhook-signature': `v1,${signature}`,
  };
}
