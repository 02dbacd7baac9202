// npm run media:migrate -- --to s3|fs
// Copies every stored file from the backend in use to the other one (src/storage/migrate.ts)
// with progress on stderr; then prints the setting to change. S3_* name the bucket for
// `--to s3` (MEDIA_STORAGE still says fs); for `--to fs` the files go under DATA_DIR.
import { ConfigError, loadConfigOrExit, storageConfig, type StorageConfig } from '../config.js';
import { migrateStorage } from './migrate.js';

const i = process.argv.indexOf('--to');
const to = i >= 0 ? process.argv[i + 1] : undefined;
if (to !== 's3' && to !== 'fs') {
  process.stderr.write('usage: npm run media:migrate -- --to s3|fs\n');
  process.exit(64);
}
// Both backends' settings: the bucket's from S3_* whatever MEDIA_STORAGE says.
const config = loadConfigOrExit(process.env);
// Not loadConfig with MEDIA_STORAGE=s3: that also demands the node keys, which a single
// node moving its files does not need yet.
let s3: StorageConfig;
try {
  s3 = storageConfig({ ...process.env, MEDIA_STORAGE: 's3' });
} catch (err) {
  if (!(err instanceof ConfigError)) throw err;
  process.stderr.write(`media:migrate: ${err.message}\n`);
  process.exit(78);
}
const fs: StorageConfig = { kind: 'fs' };
const [source, target] = to === 's3' ? [fs, s3] : [s3, fs];
const where = (s: StorageConfig) => (s.kind === 's3' ? `bucket ${s.bucket}${s.prefix ? ` under ${s.prefix}` : ''}` : `${config.dataDir}`);
process.stderr.write(`media:migrate: copying from ${where(source)} to ${where(target)}\n`);
try {
  const report = await migrateStorage(config, source, target, (line) => process.stderr.write(`media:migrate: ${line}\n`));
  process.stderr.write(`media:migrate: done in ${report.passes} passes, ${report.copied} files copied, each checked by size and MD5\n`);
  process.stdout.write(`Now set MEDIA_STORAGE=${to} on every node${to === 's3' ? ' (with the same S3_* settings, and the node keys MEDIA_URL_SECRET, WEBHOOK_SECRETS_KEY and AUDIT_CHAIN_KEY, which s3 requires: docs/operations.md, "Node keys")' : ''} and restart; a later run copies what arrived since. The source files are kept: remove them once the site runs on the new storage.\n`);
} catch (err) {
  process.stderr.write(`media:migrate: ${(err as Error).message}\n`);
  process.exit(1);
}
