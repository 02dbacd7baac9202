import type { Generated } from 'kysely';

export interface GuideIdTable {
  guideid: Generated<number>;
  created_date: number;
}

/** One row per guide and language; translations share the guideid. */
export interface GuideTable {
  guideid: number;
  langid: string;
  /** The newest row of guide_revisions for this guide and language. */
  revisionid: number;
  /** The owner (creator). */
  userid: number;
  type: string;
  /** Title of a CATEGORY wiki. */
  category: string;
  title: string;
  subject: string;
  summary: string;
  /** Wiki syntax. */
  introduction: string;
  /** Wiki syntax. */
  conclusion: string;
  difficulty: string;
  time_required: string;
  /** Seconds. */
  time_required_min: number;
  time_required_max: number;
  public: number;
  deleted: number;
  deleted_date: number | null;
  /** The image chosen for the guide. */
  imageid: number | null;
  /** The first image of the first step (the guide's image when none was chosen). */
  step_imageid: number | null;
  /** JSON: [{title, quantity, notes}] naming ITEM wikis. */
  parts: string;
  tools: string;
  /** JSON: [documentid]. */
  documents: string;
  created_date: number;
  modified_date: number;
  published_date: number | null;
  /** Bumped (by triggers) when the guide's record changes without a new revision: with `revisionid`, it vouches for the guide cache's entry (guides.cache.ts). */
  cache_stamp: Generated<number>;
}

/**
 * The columns a client sets (create, PATCH: `validateGuideFields`), written here once:
 * the validated values are an `Updateable` of them, a revision's snapshot keeps them
 * (guides.snapshots.ts) and a new guide's row is `Insertable<GuideTable>` built from them.
 */
export type GuideFieldColumn = (typeof GUIDE_FIELD_COLUMNS)[number];
export const GUIDE_FIELD_COLUMNS = [
  'type', 'category', 'title', 'subject', 'summary', 'introduction', 'conclusion', 'difficulty',
  'time_required', 'time_required_min', 'time_required_max', 'public', 'imageid', 'parts', 'tools', 'documents',
] as const satisfies ReadonlyArray<keyof GuideTable>;

/** A new guide's field columns before the client's values: what a create leaves out. */
export const NEW_GUIDE_FIELDS: Pick<GuideTable, GuideFieldColumn> = {
  type: '', category: '', title: '', subject: '', summary: '', introduction: '', conclusion: '', difficulty: '',
  time_required: '', time_required_min: 0, time_required_max: 0, public: 0, imageid: null, parts: '[]', tools: '[]', documents: '[]',
};

/** The list pages' stamp (`cache_stamps` row 'guides'), bumped by triggers when any guide changes. */
export interface CacheStampTable {
  key: string;
  stamp: number;
}

/**
 * A guide's stored full record (guides.stored.ts, migration 2026_11_25_0500): the bytes
 * of the current record in one language for one viewer variant, valid while the guide's
 * (revisionid, cache_stamp) equal the ones it was built at.
 */
export interface GuideRecordTable {
  guideid: number;
  langid: string;
  /** '' (the same for every caller), else the viewer class; 'released ...' for what readers see under an approval process. */
  variant: string;
  revisionid: number;
  cache_stamp: number;
  /** The 'guide_titles' stamp it was built under (titles of the guides its text links to). */
  titles_stamp: number;
  /** App-clock seconds: the record serves `storedTtl` after (guides.stored.ts: the life of its media URLs). */
  built_at: number;
  /** What the record took of its builder's configuration (guides.stored.ts `builderOf`): public URL, languages, media URL key. */
  built_by: string;
  body: Buffer;
  /** The answer's ETag and the JSON's length (migration 2026_11_26_1300); null when stored before them. */
  etag: string | null;
  size: number | null;
}

/** Rendered texts kept between builds (guides.stored.ts): a step's lines or a guide's head, as a JSON array of HTML, compressed (stored-bytes.ts). */
export interface GuideRenderedTable {
  /** 's<stepid>' or 'g<guideid>/<langid>'. */
  key: string;
  /** Of the texts rendered (guides.stored.ts `textsHash`). */
  hash: string;
  titles_stamp: number;
  built_at: number;
  built_by: string;
  body: Buffer;
}

export interface GuidePrereqTable {
  guideid: number;
  langid: string;
  prereq_guideid: number;
  orderby: number;
}

export interface GuideStepTable {
  stepid: Generated<number>;
  guideid: number;
  langid: string;
  orderby: number;
  /** The newest row of guide_step_revisions for this step. */
  revisionid: number;
  title: string;
  /** image | video | null */
  media_type: string | null;
  videoid: number | null;
  created_date: number;
  modified_date: number;
  /** JSON array of the field_revisionids of the step's current form fields, in order. */
  fields: Generated<string>;
}

/** One version of a form field of a step (never changed: a change is a new row). */
export interface GuideStepFieldTable {
  field_revisionid: Generated<number>;
  stepid: number;
  /** text | number | checkbox | choice */
  type: string;
  label: string;
  required: Generated<number>;
  /** JSON array of the choices of a choice field. */
  options: Generated<string>;
  created_date: number;
}

export interface GuideStepImageTable {
  stepid: number;
  orderby: number;
  imageid: number;
}

export interface GuideLineTable {
  lineid: Generated<number>;
  stepid: number;
  orderby: number;
  /** Wiki syntax. */
  text: string;
  /** The bullet style's name: black, red, ..., icon_note, icon_caution, icon_reminder. */
  bullet: string;
  bullet_styleid: number | null;
  /** 0 to 3. */
  level: number;
}

export interface GuideBulletStyleTable {
  bullet_styleid: Generated<number>;
  name: string;
  /** color | icon */
  type: string;
  is_default: number;
  color_locked: number;
  label: string;
  description: string;
  is_disabled: number;
  bullet_color: string | null;
  size: number | null;
  imageid: number | null;
  char: string | null;
  last_modified: number;
  userid_modified: number | null;
}

export interface GuideRevisionTable {
  revisionid: Generated<number>;
  guideid: number;
  langid: string;
  userid: number | null;
  date: number;
  /** create | edit | step_add | step_edit | step_delete | steporder | public | unpublish | tag | delete | restore */
  action: string;
  /** JSON GuideSnapshot (guides.snapshots.ts). */
  snapshot: string;
}

export interface GuideStepRevisionTable {
  revisionid: Generated<number>;
  stepid: number;
  guideid: number;
  langid: string;
  userid: number | null;
  date: number;
  action: string;
  /** JSON StepSnapshot. */
  snapshot: string;
}

export interface GuideReleaseTable {
  releaseid: Generated<number>;
  guideid: number;
  langid: string;
  revisionid: number;
  userid: number | null;
  /** released | removed (the approvals area adds pending states) */
  status: string;
  title: string;
  /** major | minor */
  type: string;
  notes: string;
  version: string | null;
  init_date: number;
  release_date: number | null;
}

export interface GuideUserMarkTable {
  userid: number;
  guideid: number;
  langid: string;
  date: number;
}

export interface GuideCollaboratorTable {
  guideid: number;
  /** user | team */
  kind: string;
  memberid: number;
  added_by: number | null;
  date: number;
}

export interface GuideFlagTable {
  guideid: number;
  flagid: string;
  userid: number | null;
  date: number;
}

export interface GuidesTables {
  guide_ids: GuideIdTable;
  guides: GuideTable;
  guide_prereqs: GuidePrereqTable;
  guide_steps: GuideStepTable;
  guide_step_images: GuideStepImageTable;
  guide_lines: GuideLineTable;
  guide_bullet_styles: GuideBulletStyleTable;
  guide_revisions: GuideRevisionTable;
  guide_step_revisions: GuideStepRevisionTable;
  guide_step_fields: GuideStepFieldTable;
  guide_releases: GuideReleaseTable;
  guide_completions: GuideUserMarkTable;
  guide_favorites: GuideUserMarkTable;
  guide_collaborators: GuideCollaboratorTable;
  guide_flags: GuideFlagTable;
  cache_stamps: CacheStampTable;
  guide_records: GuideRecordTable;
  guide_rendered: GuideRenderedTable;
}
