/** The time, in UNIX seconds. Passed to buildApp so that tests set it instead of waiting. */
export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Math.floor(Date.now() / 1000) };

/** A clock a test moves by hand. */
export class ManualClock implements Clock {
  constructor(private t = 1_800_000_000) {}
  now() {
    return this.t;
  }
  set(t: number) {
    this.t = t;
  }
  advance(seconds: number) {
    this.t += seconds;
  }
}
