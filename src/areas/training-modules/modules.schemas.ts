// External training module payloads. The specification names the endpoints only ("Fields
// of records for ... external training modules: not shown"); these records follow the
// style of the documented ones and are named in src/http/openapi.records.ts.
import { Type, type Static } from '@sinclair/typebox';
import { Id, Nullable, OffsetLimit, StringEnum, Timestamp } from '../../http/schemas.js';

export const IMPORT_STATUSES = ['CREATED', 'RUNNING', 'COMPLETE', 'ERROR', 'CANCELLED'] as const;
export const SCORM_VERSIONS = ['1.2', '2004'] as const;
export const MANAGE_PERMISSION = 'manage-external-training-module';
/** A commit token: 32 random bytes, base64url. */
export const COMMIT_TOKEN_PATTERN = '^[A-Za-z0-9_-]{43}$';

export const ImportStatus = StringEnum(IMPORT_STATUSES, { description: 'CREATED (not started), RUNNING, COMPLETE, ERROR (see `message`) or CANCELLED.' });

export const ModuleImport = Type.Object({
  importid: Type.Integer(),
  external_training_moduleid: Type.Integer(),
  sequence: Type.Integer({ description: 'The import\'s number within the module: 1, 2, ...' }),
  provider_version_number: Type.Integer({ description: 'The manifest\'s `version` attribute when it is a whole number, else `sequence`.' }),
  status: ImportStatus,
  percent: Type.Integer({ minimum: 0, maximum: 100 }),
  message: Type.String(),
  source: Nullable(StringEnum(['upload', 'url'] as const)),
  source_url: Nullable(Type.String()),
  title: Nullable(Type.String({ description: 'The default organization\'s title, once unpacked.' })),
  scorm_version: Nullable(StringEnum(SCORM_VERSIONS)),
  launch_file: Nullable(Type.String({ description: 'The launch file within the package (organizations/@default -> item/@identifierref -> resource/@href).' })),
  manifest_version: Nullable(Type.String({ description: 'The manifest\'s `version` attribute as written.' })),
  file_count: Type.Integer(),
  total_bytes: Type.Integer(),
  is_current: Type.Boolean(),
  is_draft: Type.Boolean(),
  userid_created: Nullable(Type.Integer()),
  created_date: Timestamp,
  started_date: Nullable(Timestamp),
  finished_date: Nullable(Timestamp),
}, { description: 'An import of an external training module package (one version of the module).' });

export const ImportProgress = Type.Object({
  importid: Type.Integer(),
  external_training_moduleid: Type.Integer(),
  status: ImportStatus,
  percent: Type.Integer({ minimum: 0, maximum: 100 }),
  message: Type.String(),
}, { description: 'Progress of an import.' });

export const TrainingModule = Type.Object({
  external_training_moduleid: Type.Integer(),
  title: Type.String(),
  scorm_version: Nullable(StringEnum(SCORM_VERSIONS)),
  current_importid: Nullable(Type.Integer()),
  draft_importid: Nullable(Type.Integer()),
  import_count: Type.Integer(),
  created_date: Timestamp,
  modified_date: Timestamp,
}, { description: 'An external training module (a SCORM package and its versions).' });

export const ModuleUsage = Type.Object({
  external_training_moduleid: Type.Integer(),
  courses: Type.Array(Type.Object({
    wikiid: Type.Integer(),
    title: Type.String(),
    course_stageid: Type.Integer(),
    url: Type.String(),
  })),
}, { description: 'Where a module is used: the course stages that point at it.' });

export const PlayerData = Type.Object({
  external_training_moduleid: Type.Integer(),
  importid: Type.Integer(),
  scorm_version: StringEnum(SCORM_VERSIONS),
  title: Type.String(),
  preview: Type.Boolean({ description: 'A preview: commits are kept but complete nothing.' }),
  attempt: Type.Integer({ description: 'The learner\'s attempt number on this module version.' }),
  player_url: Type.String({ description: 'The player page (opens the launch file in a frame with the SCORM runtime). Holds the commit token, not the API token.' }),
  launch_url: Type.String({ description: 'The package\'s launch file, served from the stored package files.' }),
  commit_url: Type.String({ description: 'Where the runtime commits (POST /external_training_modules/commits/{commit_token}).' }),
  token_expires: Timestamp,
  state: Nullable(Type.Object({}, { additionalProperties: true, description: 'The learner\'s saved data model of this attempt (`cmi`), restored on launch.' })),
  completed: Type.Boolean(),
}, { description: 'What a player needs to run a module for one learner and attempt.' });

export const CommitResult = Type.Object({
  result: Type.Boolean(),
  errorCode: Type.Integer(),
}, { description: 'The answer a SCORM runtime (scorm-again) expects from its commit URL.' });

export const ImportCreate = Type.Object({
  external_training_moduleid: Type.Optional(Id({ description: 'A module to import a new version of; without it the import starts a new module.' })),
});
export const StartByUrl = Type.Object({
  url: Type.String({ minLength: 1, maxLength: 2000, description: 'An http or https URL of the package (zip).' }),
});
export const ImportChoice = Type.Object({ importid: Id({ description: 'An import of this module that completed.' }) });
export const ModuleParam = Type.Object({ id: Id() });
export const ImportParam = Type.Object({ importid: Id() });
export const CommitParam = Type.Object({ commit_token: Type.String({ minLength: 43, maxLength: 43, pattern: COMMIT_TOKEN_PATTERN, description: 'The commit token of the player data.' }) });
export const ListQuery = Type.Object({ ...OffsetLimit });
export const CommitBody = Type.Object({}, { additionalProperties: true, description: 'What scorm-again commits: `{"cmi": {...}}` (its default JSON format), or flat `{"cmi.core.lesson_status": ...}`.' });

export type ModuleImportRecord = Static<typeof ModuleImport>;
export type TrainingModuleRecord = Static<typeof TrainingModule>;
export type PlayerDataRecord = Static<typeof PlayerData>;
