// Tables of the external training modules area (migration 2026_11_25_0300_training_modules).
import type { Generated } from 'kysely';

declare module '../users/users.tables.js' {
  interface UserTable {
    /** Comma-separated permissions beyond privileges (manage-external-training-module). */
    permissions: Generated<string>;
  }
}

export interface TrainingModuleTable {
  external_training_moduleid: Generated<number>;
  title: string;
  current_importid: number | null;
  draft_importid: number | null;
  import_count: Generated<number>;
  userid_created: number | null;
  created_date: number;
  modified_date: number;
}

export type ImportStatus = 'CREATED' | 'RUNNING' | 'COMPLETE' | 'ERROR' | 'CANCELLED';

export interface TrainingModuleImportTable {
  importid: Generated<number>;
  external_training_moduleid: number;
  sequence: number;
  status: ImportStatus;
  percent: Generated<number>;
  message: Generated<string>;
  source: 'upload' | 'url' | null;
  source_url: string | null;
  title: string | null;
  scorm_version: '1.2' | '2004' | null;
  launch_path: string | null;
  manifest_version: string | null;
  provider_version_number: number;
  file_count: Generated<number>;
  total_bytes: Generated<number>;
  userid_created: number | null;
  created_date: number;
  started_date: number | null;
  finished_date: number | null;
}

export interface TrainingModuleAttemptTable {
  module_attemptid: Generated<number>;
  userid: number;
  importid: number;
  external_training_moduleid: number;
  attempt: number;
  preview: Generated<number>;
  token_hash: string;
  token_expires: number;
  state: string | null;
  lesson_status: string | null;
  completion_status: string | null;
  success_status: string | null;
  score: string | null;
  completed: Generated<number>;
  commit_count: Generated<number>;
  created_date: number;
  modified_date: number;
  completed_date: number | null;
}

export interface TrainingModuleValueTable {
  module_attemptid: number;
  element: string;
  value: string;
  modified_date: number;
}

export interface TrainingModulesTables {
  training_modules: TrainingModuleTable;
  training_module_imports: TrainingModuleImportTable;
  training_module_attempts: TrainingModuleAttemptTable;
  training_module_values: TrainingModuleValueTable;
}
