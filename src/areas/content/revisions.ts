// What guides and wikis share about changing a versioned resource.

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
