// Outgoing mail goes through the jobs table (a durable outbox): the write that needs a
// mail enqueues it in its own transaction; the worker delivers it, with retries.
import { lazyRequire } from '../lazy-require.js';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Config } from '../config.js';
import type { Clock } from '../clock.js';
import { enqueueJob, type JobType } from './queue.js';

export interface MailMessage {
  to: string;
  subject: string;
  text: string;
}

/** Loaded only by a process that sends by SMTP (lazy-require.ts). */
const nodemailer = lazyRequire<typeof import('nodemailer')>('nodemailer');

export const MAIL_JOB = 'mail.send';

export function queueMail(db: Kysely<Database>, clock: Clock, message: MailMessage) {
  return enqueueJob(db, clock, MAIL_JOB, message);
}

/** `MAIL_TRANSPORT=log` writes the mail to the log; `smtp://...` sends it. Mail has a lane of its own. */
export function mailJobHandler(config: Config): JobType {
  const transport = config.mailTransport.startsWith('smtp') ? nodemailer().createTransport(config.mailTransport) : null;
  const run = async (message: MailMessage, { log }: { log: { info: (o: object, m: string) => void } }) => {
    if (!transport) {
      log.info({ mail: { to: message.to, subject: message.subject, text: message.text } }, 'mail (MAIL_TRANSPORT=log)');
      return;
    }
    await transport.sendMail({ from: config.mailFrom, ...message });
  };
  return { run, lane: 'mail' };
}
