// The training modules' stored files for the orphan sweep (storage/orphans.ts): which keys
// of the `modules` store are in use. A staged package while its import waits or runs
// (CREATED, RUNNING); an import's unpacked files while it runs or once it is complete.
// A failed or cancelled import's files are left over (its job deletes them, unless its
// process died first).
import type { StoredFileRule } from '../../storage/orphans.js';
import { moduleKeyOwner } from './modules.zip.js';

const USES: Record<'staged' | 'unpacked', readonly string[]> = { staged: ['CREATED', 'RUNNING'], unpacked: ['RUNNING', 'COMPLETE'] };

export const moduleStoredFiles: StoredFileRule = {
  namespace: 'modules',
  owns: (key) => moduleKeyOwner(key) !== null,
  async start(db) {
    return async (keys) => {
      const owners = keys.map((key) => ({ key, owner: moduleKeyOwner(key)! }));
      const ids = [...new Set(owners.map((o) => o.owner.importid))];
      const rows = await db.selectFrom('training_module_imports').select(['importid', 'status']).where('importid', 'in', ids).execute();
      const status = new Map(rows.map((r) => [r.importid, r.status as string]));
      return new Set(owners.filter(({ owner }) => USES[owner.kind].includes(status.get(owner.importid) ?? '')).map((o) => o.key));
    };
  },
};
