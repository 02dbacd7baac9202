import type { FastifyInstance } from 'fastify';

/**
 * What `make` makes, once per app's database: a process's caches belong to the database
 * they were filled from, and tests build several apps (each its own database) in one process.
 */
export function perDatabase<T>(make: (app: FastifyInstance) => T): (app: FastifyInstance) => T {
  const made = new WeakMap<object, T>();
  return (app) => {
    let value = made.get(app.db);
    if (value === undefined) made.set(app.db, (value = make(app)));
    return value;
  };
}
