// Response records of the external training modules area, built from rows.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import type { ModuleImportRecord, TrainingModuleRecord } from './modules.schemas.js';
import { importsById, type ImportRow, type ModuleRow } from './modules.queries.js';

export function importRecord(row: ImportRow, module: Pick<ModuleRow, 'current_importid' | 'draft_importid'>): ModuleImportRecord {
  return {
    importid: row.importid,
    external_training_moduleid: row.external_training_moduleid,
    sequence: row.sequence,
    provider_version_number: row.provider_version_number,
    status: row.status,
    percent: row.percent,
    message: row.message,
    source: row.source,
    source_url: row.source_url,
    title: row.title,
    scorm_version: row.scorm_version,
    launch_file: row.launch_path,
    manifest_version: row.manifest_version,
    file_count: Number(row.file_count),
    total_bytes: Number(row.total_bytes),
    is_current: module.current_importid === row.importid,
    is_draft: module.draft_importid === row.importid,
    userid_created: row.userid_created,
    created_date: Number(row.created_date),
    started_date: row.started_date === null ? null : Number(row.started_date),
    finished_date: row.finished_date === null ? null : Number(row.finished_date),
  };
}

export const progressRecord = (row: ImportRow) => ({
  importid: row.importid, external_training_moduleid: row.external_training_moduleid, status: row.status, percent: row.percent, message: row.message,
});

/** Module records: the SCORM version of the current import (else the draft), one query for the page. */
export async function moduleRecords(db: Kysely<Database>, rows: ModuleRow[]): Promise<TrainingModuleRecord[]> {
  const imports = await importsById(db, rows.flatMap((r) => [r.current_importid, r.draft_importid]).filter((id): id is number => id !== null));
  return rows.map((r) => {
    const shown = imports.get(r.current_importid ?? -1) ?? imports.get(r.draft_importid ?? -1);
    return {
      external_training_moduleid: r.external_training_moduleid,
      title: r.title,
      scorm_version: shown?.scorm_version ?? null,
      current_importid: r.current_importid,
      draft_importid: r.draft_importid,
      import_count: r.import_count,
      created_date: Number(r.created_date),
      modified_date: Number(r.modified_date),
    };
  });
}

/** Root-relative URLs of the player page and the stored package files of a launch. */
export const playerPath = (token: string) => `/training-modules/play/${token}/`;
export const contentPath = (token: string, file: string) => `/training-modules/play/${token}/content/${file.split('/').map(encodeURIComponent).join('/')}`;
export const commitPath = (token: string) => `/api/2.0/external_training_modules/commits/${token}`;
export const absolute = (config: Config, path: string) => `${config.publicUrl}${path}`;
