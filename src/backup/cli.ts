// `npm run backup -- DIR` and `npm run restore -- DIR` (docs/operations.md): the site that
// DATABASE_URL and DATA_DIR name, while it serves; a restore needs both empty.
import { loadConfigOrExit } from '../config.js';
import { backupSite, restoreSite } from './backup.js';

const args = process.argv.slice(2);
const copyObjects = args.includes('--copy-objects');
const [command, dir, ...rest] = args.filter((a) => a !== '--copy-objects');
if ((command !== 'backup' && command !== 'restore') || !dir || rest.length || (copyObjects && command !== 'backup')) {
  console.error('usage: npm run backup -- DIR [--copy-objects]   |   npm run restore -- DIR');
  process.exit(2);
}
const progress = (line: string) => process.stderr.write(`${command}: ${line}\n`);
try {
  const config = loadConfigOrExit();
  if (command === 'backup') await backupSite(config, dir, progress, { copyObjects });
  else await restoreSite(config, dir, progress);
} catch (err) {
  console.error(`${command} failed: ${(err as Error).message}`);
  process.exit(1);
}
