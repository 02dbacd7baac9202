// `npm run keys:export`: prints the node keys generated into DATA_DIR as settings in the
// import form, one `NAME=base64url:<key>` line each, on stdout only (server-keys.ts): given
// so, a key is the same key as its file, so a single node whose keys were generated can move
// to settings (MEDIA_STORAGE=s3, more nodes) with its signed media URLs, sealed webhook keys
// and audit chain intact (docs/operations.md). Reads the files only: makes none, needs no
// database and no other setting. A key whose setting is set in the environment is not
// printed (the node uses that value, not the file). Exits 0 when every key is printed or
// set, 1 otherwise (a missing or unusable file, named on stderr).
import { dataDirOf } from './config.js';
import { exportedKeys } from './server-keys.js';

const dataDir = dataDirOf(process.env);
process.stderr.write('keys:export: the lines on stdout are secrets (they sign media URLs, open the webhook signing keys and chain the audit log):\n' +
  '  put them into your secret store or the nodes\' environment, not into a shell history, a ticket or a repository.\n');
let incomplete = false;
for (const key of exportedKeys(dataDir)) {
  if (process.env[key.name]) {
    process.stderr.write(`keys:export: ${key.name} is set in the environment: the node uses that value, not ${key.file}; keep it as it is.\n`);
  } else if ('value' in key) {
    process.stdout.write(`${key.name}=${key.value}\n`);
  } else if ('missing' in key) {
    incomplete = true;
    process.stderr.write(`keys:export: ${key.file} does not exist: no ${key.name} was generated into this DATA_DIR (is DATA_DIR the node's?).\n`);
  } else {
    incomplete = true;
    process.stderr.write(`keys:export: ${key.problem}.\n`);
  }
}
process.exitCode = incomplete ? 1 : 0;
