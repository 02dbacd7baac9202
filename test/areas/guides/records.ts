// The specification's field lists (copied here: the project never reads the spec files
// at test time), for checking that records have exactly these fields.
export const LIGHT_GUIDE_FIELDS = ['category', 'dataType', 'flags', 'guideid', 'image', 'locale', 'modified_date', 'prereq_modified_date', 'public', 'revisionid', 'subject', 'title', 'type', 'url', 'userid', 'username'];

/** The specification's full guide fields (up to `steps`), then the ones it does not show. */
export const FULL_GUIDE_FIELDS = [
  'conclusion_raw', 'conclusion_rendered', 'difficulty', 'documents', 'flags', 'guideid', 'image', 'introduction_raw', 'introduction_rendered',
  'featured_document_embed_url', 'featured_document_thumbnail_url', 'locale', 'parts', 'prerequisites', 'steps',
  'title', 'subject', 'type', 'category', 'summary', 'url', 'public', 'revisionid', 'modified_date', 'prereq_modified_date', 'created_date',
  'published_date', 'time_required', 'time_required_min', 'time_required_max', 'tools', 'tags', 'userid', 'username', 'dataType',
];

export const PREREQUISITE_FIELDS = ['dataType', 'guideid', 'locale', 'revisionid', 'modified_date', 'prereq_modified_date', 'url', 'type', 'category', 'subject', 'title', 'summary', 'difficulty', 'time_required_max', 'public', 'userid', 'username', 'flags', 'image'];
export const STEP_FIELDS = ['title', 'lines', 'guideid', 'stepid', 'orderby', 'revisionid', 'imageURL', 'media', 'fields', 'comments'];
export const LINE_FIELDS = ['text_raw', 'text_rendered', 'bullet', 'bullet_styleid', 'bullet_style', 'level', 'lineid'];
export const BULLET_STYLE_FIELDS = ['bullet_styleid', 'type', 'is_default', 'color_locked', 'label', 'description', 'is_disabled', 'bullet_color', 'size', 'imageid', 'char', 'last_modified', 'userid_modified'];
export const RELEASE_FIELDS = ['releaseid', 'guideid', 'langid', 'revisionid', 'user', 'status', 'title', 'init_date', 'release_date', 'notes', 'type', 'href', 'version'];
export const FLAG_FIELDS = ['flagid', 'image', 'title', 'text'];
export const USER_SUMMARY_FIELDS = ['userid', 'username', 'unique_username', 'join_date', 'image', 'reputation', 'url', 'teams', 'privileges'];
export const IMAGE_OBJECT_REQUIRED = ['id', 'guid'];
export const VIDEO_DETAIL_FIELDS = ['videoid', 'filename', 'duration', 'width', 'height', 'srcid', 'image', 'meta', 'encodings'];

export const keys = (o: object) => Object.keys(o).sort();
export const sorted = (a: string[]) => [...a].sort();
