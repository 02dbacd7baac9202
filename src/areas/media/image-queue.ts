// Image work (decoding uploads, size variants, edits) takes memory in proportion to the
// pixels and CPU for as long as it runs. It all passes through one bounded queue per
// process: at most `concurrency` tasks run, at most `waiting` more wait their turn, and
// anything beyond is refused at once with 429 `busy` and `Retry-After` (the process's
// memory stays bounded instead of growing with the number of requests).
import { operatorCounts } from '../../http/operator-metrics.js';
import { HttpError } from '../../http/errors.js';

/** Seconds a client refused for a full queue is asked to wait. */
export const BUSY_RETRY_AFTER = 2;

export function busy(): HttpError {
  return new HttpError(429, 'busy', `The server is busy with other images; try again in ${BUSY_RETRY_AFTER} seconds.`, undefined, undefined, { 'retry-after': String(BUSY_RETRY_AFTER) });
}

export class ImageQueue {
  private running = 0;
  private readonly queue: Array<() => void> = [];

  constructor(
    public concurrency: number,
    public waiting: number,
  ) {}

  /** Tasks running and waiting now. */
  get size(): number {
    return this.running + this.queue.length;
  }

  /** Runs `task` when a place is free; throws `busy()` at once when every place is taken. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (this.running >= this.concurrency) {
      if (this.queue.length >= this.waiting) {
        operatorCounts.imageQueueRejections++;
        throw busy();
      }
      await new Promise<void>((resolve) => this.queue.push(resolve));
    } else {
      this.running++;
    }
    try {
      return await task();
    } finally {
      // Hand the place to the next in line (running stays the same), or free it.
      const next = this.queue.shift();
      if (next) next();
      else this.running--;
    }
  }
}

/** The process's queue: images of every app in the process share its memory and cores. */
export const imageQueue = new ImageQueue(2, 16);
