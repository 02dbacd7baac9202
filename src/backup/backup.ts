// A site's snapshot and its restore: the database (SQLite's online backup, or pg_dump's
// custom format) and every stored file under DATA_DIR with its size and SHA-256, plus the
// server keys. Files are copied before the database and again after it (the ones that
// arrived meanwhile), so the snapshot's database names no file the snapshot lacks: stored
// files are never changed in place, and a file the database no longer names is harmless.
// With object storage (MEDIA_STORAGE=s3) the snapshot lists the bucket's objects, or, with
// `copyObjects`, copies them into `files/<namespace>/<key>` (the filesystem's layout), so
// that a restore can put them into a bucket or under DATA_DIR.
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { createReadStream, createWriteStream, existsSync } from 'node:fs';
import { chmod, copyFile, mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import type { Config } from '../config.js';
import { dialectOf, sqlitePath } from '../db/database.js';
import { checkKey, makeStore, NAMESPACES, type Namespace } from '../storage/blob-store.js';

export const BACKUP_FORMAT = 1;

export interface StoredFile { path: string; size: number; sha256: string }

export interface Manifest {
  format: number;
  created: string;
  database: 'sqlite' | 'postgres';
  databaseFile: string;
  /** Where the site kept its stored files (absent: `fs`, backups made before object storage). */
  storage?: 'fs' | 's3';
  /** Copied files, as `<namespace>/<key>` (the filesystem's layout under DATA_DIR). */
  files: StoredFile[];
  /** With `s3` and without `copyObjects`: the bucket's objects the database may name, not copied. */
  objects?: Array<{ path: string; size: number }>;
  keys: string[];
}

export interface BackupOptions {
  /** With object storage: copy every object into the snapshot (else only their list is kept). */
  copyObjects?: boolean;
}

/** Progress lines go to stderr, so that stdout stays the command's result. */
export type Progress = (line: string) => void;

const KEY_FILE = /\.key$/;

/** DATA_DIR's own files that are not stored files: temporary work, and the SQLite database. */
function skipped(config: Config, rel: string): boolean {
  if (rel === 'tmp' || rel.startsWith(`tmp${sep}`)) return true;
  if (dialectOf(config.databaseUrl) === 'sqlite') {
    const db = resolve(sqlitePath(config.databaseUrl));
    const full = resolve(config.dataDir, rel);
    if (full === db || full === `${db}-wal` || full === `${db}-shm` || full === `${db}-journal`) return true;
  }
  return false;
}

/** Every file under DATA_DIR that a snapshot keeps, as paths relative to it, and the key files apart. */
async function walk(config: Config, exclude: string | null): Promise<{ files: string[]; keys: string[] }> {
  const files: string[] = [];
  const keys: string[] = [];
  async function visit(dir: string) {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return; // removed meanwhile
      throw err;
    }
    for (const entry of entries) {
      const full = join(dir, entry.name);
      if (exclude && (full === exclude || full.startsWith(exclude + sep))) continue;
      const rel = relative(config.dataDir, full);
      if (skipped(config, rel)) continue;
      if (entry.isDirectory()) await visit(full);
      else if (entry.isFile()) {
        if (dir === config.dataDir && KEY_FILE.test(entry.name)) keys.push(entry.name);
        else files.push(rel);
      }
    }
  }
  await visit(config.dataDir);
  return { files: files.sort(), keys: keys.sort() };
}

/** Copies `from` (a file, or a stream) to `to` and answers the bytes' size and SHA-256 (one read of the source). */
async function copyHashed(from: string | Readable, to: string): Promise<{ size: number; sha256: string }> {
  await mkdir(dirname(to), { recursive: true });
  const hash = createHash('sha256');
  let size = 0;
  const source = typeof from === 'string' ? createReadStream(from) : from;
  source.on('data', (chunk: Buffer) => { hash.update(chunk); size += chunk.length; });
  await pipeline(source, createWriteStream(to, { flags: 'wx' }));
  return { size, sha256: hash.digest('hex') };
}

async function hashFile(file: string): Promise<{ size: number; sha256: string }> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of createReadStream(file)) { hash.update(chunk as Buffer); size += (chunk as Buffer).length; }
  return { size, sha256: hash.digest('hex') };
}

/** Runs a PostgreSQL client program; its stderr becomes the error's message. */
function runTool(program: string, args: string[]): Promise<void> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(program, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d) => { if (err.length < 8192) err += d; });
    child.on('error', (e) => reject(new Error(`${program} could not be run (${e.message}): install PostgreSQL's client programs`)));
    child.on('exit', (code) => (code === 0 ? resolveRun() : reject(new Error(`${program} failed (exit ${code}): ${err.trim()}`))));
  });
}

async function emptyOrMissing(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length === 0;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw err;
  }
}

/** A stored file's path in a snapshot (`<namespace>/<key>`) as its store and key; null when it names none. */
function storedPath(path: string): { namespace: Namespace; key: string } | null {
  const slash = path.indexOf('/');
  const namespace = path.slice(0, slash) as Namespace;
  if (slash < 0 || !NAMESPACES.includes(namespace)) return null;
  const key = path.slice(slash + 1);
  try {
    checkKey(key);
  } catch {
    return null;
  }
  return { namespace, key };
}

export async function backupSite(config: Config, target: string, progress: Progress, options: BackupOptions = {}): Promise<Manifest> {
  const dir = resolve(target);
  if (!(await emptyOrMissing(dir))) throw new Error(`${dir} is not empty: a backup goes into a new or empty folder`);
  await mkdir(join(dir, 'files'), { recursive: true });
  const dialect = dialectOf(config.databaseUrl);
  const copied = new Map<string, StoredFile>();
  let bytes = 0;

  async function copyPass(label: string) {
    const { files } = await walk(config, dir);
    const todo = files.filter((f) => !copied.has(f));
    let done = 0;
    for (const rel of todo) {
      try {
        const got = await copyHashed(join(config.dataDir, rel), join(dir, 'files', rel));
        copied.set(rel, { path: rel.split(sep).join('/'), ...got });
        bytes += got.size;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err; // deleted meanwhile: no longer named
      }
      done++;
      if (done % 200 === 0 || done === todo.length) progress(`${label}: ${done}/${todo.length} files, ${(bytes / 1048576).toFixed(1)} MB in all`);
    }
    if (!todo.length) progress(`${label}: nothing new`);
  }

  // Object storage: the bucket's objects, listed (or copied) before the database and again after it.
  const listed = new Map<string, { path: string; size: number }>();
  async function objectPass(label: string) {
    let seen = 0;
    for (const namespace of NAMESPACES) {
      const store = makeStore(config, namespace);
      for await (const { key, size } of store.list()) {
        const path = `${namespace}/${key}`;
        if (copied.has(path) || listed.has(path)) continue;
        seen++;
        if (options.copyObjects) {
          const body = await store.get(key);
          if (!body) continue; // deleted meanwhile: no longer named
          const got = await copyHashed(body, join(dir, 'files', ...path.split('/')));
          copied.set(path, { path, ...got });
          bytes += got.size;
        } else {
          listed.set(path, { path, size });
          bytes += size;
        }
        if (seen % 200 === 0) progress(`${label}: ${seen} objects ${options.copyObjects ? 'copied' : 'listed'}, ${(bytes / 1048576).toFixed(1)} MB in all`);
      }
    }
    progress(`${label}: ${seen ? `${seen} objects ${options.copyObjects ? 'copied' : 'listed'}` : 'nothing new'}`);
  }
  const s3 = config.storage.kind === 's3';
  if (options.copyObjects && !s3) throw new Error('--copy-objects is for MEDIA_STORAGE=s3: with fs every stored file is copied anyway');

  await (s3 ? objectPass('objects') : copyPass('files'));
  const databaseFile = dialect === 'sqlite' ? 'database.sqlite' : 'database.pgdump';
  progress(`database (${dialect}) ...`);
  if (dialect === 'sqlite') {
    const source = new SQLite(sqlitePath(config.databaseUrl), { readonly: true, fileMustExist: true });
    try {
      source.pragma('busy_timeout = 10000');
      await source.backup(join(dir, databaseFile), {
        progress({ totalPages, remainingPages }) {
          progress(`database: ${totalPages - remainingPages}/${totalPages} pages`);
          return 1000;
        },
      });
    } finally {
      source.close();
    }
  } else {
    await runTool('pg_dump', ['--format=custom', '--no-owner', '--no-privileges', '--file', join(dir, databaseFile), '--dbname', config.databaseUrl]);
  }
  await (s3 ? objectPass('objects that arrived meanwhile') : copyPass('files that arrived meanwhile'));

  const { keys } = await walk(config, dir);
  await mkdir(join(dir, 'keys'), { recursive: true });
  for (const name of keys) {
    await copyFile(join(config.dataDir, name), join(dir, 'keys', name));
    await chmod(join(dir, 'keys', name), 0o600);
  }
  const manifest: Manifest = {
    format: BACKUP_FORMAT,
    created: new Date().toISOString(),
    database: dialect,
    databaseFile,
    storage: config.storage.kind,
    files: [...copied.values()].sort((a, b) => (a.path < b.path ? -1 : 1)),
    ...(s3 && !options.copyObjects ? { objects: [...listed.values()].sort((a, b) => (a.path < b.path ? -1 : 1)) } : {}),
    keys,
  };
  await writeFile(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 1) + '\n');
  progress(`done: ${manifest.files.length} files${manifest.objects ? `, ${manifest.objects.length} objects listed (not copied: --copy-objects copies them)` : ''}, ${keys.length} keys, the database in ${databaseFile}`);
  return manifest;
}

async function postgresIsEmpty(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>("select count(*)::int as n from information_schema.tables where table_schema = 'public'");
    return rows[0].n === 0;
  } finally {
    await client.end();
  }
}

export async function restoreSite(config: Config, source: string, progress: Progress): Promise<Manifest> {
  const dir = resolve(source);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as Manifest;
  } catch {
    throw new Error(`${dir} holds no backup (manifest.json is missing or unreadable)`);
  }
  if (manifest.format !== BACKUP_FORMAT) throw new Error(`backup format ${manifest.format} is not ${BACKUP_FORMAT}`);
  const dialect = dialectOf(config.databaseUrl);
  if (dialect !== manifest.database) throw new Error(`the backup holds a ${manifest.database} database and DATABASE_URL names a ${dialect} one`);

  // Nothing is overwritten: the target is an empty data directory (or bucket) and an empty database.
  const s3 = config.storage.kind === 's3';
  const present = (await walk(config, null)).files;
  if (present.length) throw new Error(`DATA_DIR (${config.dataDir}) already holds stored files (${present[0]}, ...): restore into an empty one`);
  for (const file of manifest.files) {
    if (!storedPath(file.path)) throw new Error(`the manifest names a path that is no stored file: ${file.path}`);
  }
  if (s3 && manifest.files.length) {
    for (const namespace of NAMESPACES) {
      for await (const { key } of makeStore(config, namespace).list()) throw new Error(`the bucket already holds stored files (${namespace}/${key}, ...): restore into an empty bucket or prefix`);
    }
  }
  if (manifest.objects?.length) {
    // Only listed: they must be in the bucket the restored site will use.
    if (!s3) throw new Error('the backup lists objects of a bucket without copying them: restore with MEDIA_STORAGE=s3 on the bucket that holds them, or take the backup with --copy-objects');
    let missing = 0;
    for (const o of manifest.objects) {
      const at = storedPath(o.path);
      if (!at || (await makeStore(config, at.namespace).size(at.key)) !== o.size) missing++;
    }
    if (missing) throw new Error(`${missing} of the ${manifest.objects.length} objects the backup lists are missing from the bucket (or differ in size): restore on the bucket that holds them, or from a backup taken with --copy-objects`);
    progress(`objects: all ${manifest.objects.length} listed are in the bucket`);
  }
  if (dialect === 'sqlite') {
    const file = sqlitePath(config.databaseUrl);
    if (file === ':memory:') throw new Error('DATABASE_URL names an in-memory database: restore needs a file');
    if (existsSync(file) && (await stat(file)).size > 0) throw new Error(`the database ${file} exists: restore into a new one`);
  } else if (!(await postgresIsEmpty(config.databaseUrl))) {
    throw new Error('the database DATABASE_URL names has tables: restore into an empty database');
  }

  let done = 0;
  for (const file of manifest.files) {
    const from = join(dir, 'files', ...file.path.split('/'));
    if (s3) {
      const checked = await hashFile(from);
      if (checked.size !== file.size || checked.sha256 !== file.sha256) throw new Error(`${file.path} differs from what the backup recorded (size or SHA-256): the backup is damaged`);
      const at = storedPath(file.path)!;
      await makeStore(config, at.namespace).put(at.key, createReadStream(from));
      done++;
      if (done % 200 === 0 || done === manifest.files.length) progress(`objects: ${done}/${manifest.files.length}`);
      continue;
    }
    const to = join(config.dataDir, ...file.path.split('/'));
    if (!resolve(to).startsWith(resolve(config.dataDir) + sep)) throw new Error(`the manifest names a path outside DATA_DIR: ${file.path}`);
    const got = await copyHashed(from, to);
    if (got.size !== file.size || got.sha256 !== file.sha256) throw new Error(`${file.path} differs from what the backup recorded (size or SHA-256): the backup is damaged`);
    done++;
    if (done % 200 === 0 || done === manifest.files.length) progress(`files: ${done}/${manifest.files.length}`);
  }
  await mkdir(config.dataDir, { recursive: true });
  for (const name of manifest.keys) {
    const to = join(config.dataDir, basename(name));
    if (existsSync(to)) {
      const same = (await hashFile(to)).sha256 === (await hashFile(join(dir, 'keys', name))).sha256;
      if (!same) throw new Error(`${to} exists and differs from the backup's key: remove it or restore into an empty DATA_DIR`);
      continue;
    }
    await copyFile(join(dir, 'keys', name), to);
    await chmod(to, 0o600);
  }
  progress(`database (${dialect}) ...`);
  if (dialect === 'sqlite') {
    const file = sqlitePath(config.databaseUrl);
    await mkdir(dirname(resolve(file)), { recursive: true });
    await copyFile(join(dir, manifest.databaseFile), file);
  } else {
    await runTool('pg_restore', ['--no-owner', '--no-privileges', '--exit-on-error', '--single-transaction', '--dbname', config.databaseUrl, join(dir, manifest.databaseFile)]);
  }
  progress(`done: ${manifest.files.length} files, ${manifest.keys.length} keys, the database of ${manifest.created}`);
  return manifest;
}
