// The revision mechanism every versioned resource (guides, wikis, and the areas to come)
// shares. A change runs in one transaction: it locks the resource's row at the revision
// the client sent (`UPDATE ... WHERE revisionid = <sent>`, one row or stale), applies
// itself, keeps a snapshot as a new revision and makes it current. What a snapshot holds
// and where it is kept is the resource's own (guides.service.ts, wikis.service.ts); the
// lock's check, the errors and the 409 answer are here.
import { conflict } from '../../http/errors.js';

/**
 * Thrown inside a change's transaction when the revisionid sent is not the current one:
 * the transaction rolls back and the change answers 409 with the current record. `stepid`
 * names a stale step of a guide (the 409 then carries the step).
 */
export class StaleRevision extends Error {
  constructor(public readonly kind: 'resource' | 'step' = 'resource', public readonly stepid?: number) {
    super(`stale ${kind} revision`);
  }
}

/**
 * Thrown inside a change's transaction when the resource is already as asked (a tag or
 * flag it already has, or lacks): the transaction rolls back, so the revisionid was
 * checked and nothing moved (no revision, same modified_date). The change answers 200
 * with the resource as it is.
 */
export class NothingToChange extends Error {
  constructor() {
    super('nothing to change');
  }
}

/** The lock's check: the conditional UPDATE (or DELETE) at the sent revision touched exactly one row, else StaleRevision. */
export function lockedAtRevision(result: { numUpdatedRows?: bigint; numDeletedRows?: bigint }): void {
  if (Number(result.numUpdatedRows ?? result.numDeletedRows ?? 0) !== 1) throw new StaleRevision();
}

/**
 * Runs a change (`write`, which opens its transaction): a StaleRevision it throws becomes
 * 409 with `current(err)` as the body (the current record, read after the rollback).
 */
export async function answeringConflict<T>(write: () => Promise<T>, current: (err: StaleRevision) => Promise<unknown>): Promise<T> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof StaleRevision) throw conflict(await current(err));
    throw err;
  }
}

/** Runs a change that may find nothing to do: NothingToChange (its transaction rolled back) answers undefined. */
export async function unlessUnchanged<T>(write: () => Promise<T>): Promise<T | undefined> {
  try {
    return await write();
  } catch (err) {
    if (err instanceof NothingToChange) return undefined;
    throw err;
  }
}
