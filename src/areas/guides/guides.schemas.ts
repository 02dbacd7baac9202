// The specification's guide records (light, full, prerequisite, step, line, bullet
// style, release, flag) with exactly their fields, and the request shapes.
import { Type, type Static } from '@sinclair/typebox';
import { Id, ImageObject, MAX_ID, Nullable, OffsetLimit, Order, StringEnum, Timestamp } from '../../http/schemas.js';
import { VideoDetail } from '../media/media.schemas.js';
import { UserSummary } from '../users/users.schemas.js';
import { Comment } from '../comments/comments.schemas.js';
import { FormField, FormFieldsInput } from './guides.fields.js';

// Ids are 32-bit integers in both databases: a larger one cannot exist (422, never a database error).
export { Id, MAX_ID };

export const GuideParam = Type.Object({ guideid: Id() });

export const DIFFICULTIES = ['Very easy', 'Easy', 'Moderate', 'Difficult', 'Very difficult'] as const;

export const BulletStyle = Type.Object({
  bullet_styleid: Type.Integer(),
  type: Type.String({ description: 'color or icon.' }),
  is_default: Type.Boolean(),
  color_locked: Type.Boolean(),
  label: Type.String(),
  description: Type.String(),
  is_disabled: Type.Boolean(),
  bullet_color: Nullable(Type.String({ description: 'CSS colour of a colour bullet.' })),
  size: Nullable(Type.Integer()),
  imageid: Nullable(Type.Integer()),
  char: Nullable(Type.String({ description: 'The character an icon bullet shows.' })),
  last_modified: Timestamp,
  userid_modified: Nullable(Type.Integer()),
});

const lineFields = {
  text_raw: Type.String({ description: 'Wiki syntax.' }),
  text_rendered: Type.String({ description: 'HTML.' }),
  bullet: Type.String({ description: 'The bullet style name: black, red, orange, yellow, green, light_blue, blue, violet, icon_note, icon_caution, icon_reminder.' }),
  bullet_styleid: Type.Integer(),
  bullet_style: BulletStyle,
  level: Type.Integer({ minimum: 0, maximum: 3 }),
};
export const Line = Type.Object({ ...lineFields, lineid: Type.Integer() });
export const PreviewLine = Type.Object({ ...lineFields, lineid: Nullable(Type.Integer({ description: 'null: the line is not saved.' })) });

export const StepMedia = Type.Object({
  type: StringEnum(['image', 'video'] as const),
  data: Type.Union([Type.Array(ImageObject), VideoDetail], { description: 'image: the image objects, in order; video: the video detail record.' }),
});

export const Step = Type.Object({
  title: Type.String(),
  lines: Type.Array(Line),
  guideid: Type.Integer(),
  stepid: Type.Integer(),
  orderby: Type.Integer({ description: 'Position in the guide, from 1.' }),
  revisionid: Type.Integer({ description: 'The step\'s own revision; step PATCH and DELETE take it.' }),
  imageURL: Nullable(Type.String({ description: 'The standard size of the step\'s first image.' })),
  media: StepMedia,
  fields: Type.Array(FormField, { description: 'Extension: the step\'s form fields, in order (what a performer records in the work log).' }),
  comments: Type.Array(Comment, { description: 'Top-level comments on the step, oldest first, each with its replies.' }),
});
export type Step = Static<typeof Step>;

const flagsField = Type.Array(Type.String(), { description: 'Flag ids, e.g. GUIDE_STARRED.' });

/** The light guide record of guide lists: exactly the specification's fields. */
export const LightGuide = Type.Object({
  category: Type.String(),
  dataType: Type.Literal('guide'),
  flags: flagsField,
  guideid: Type.Integer(),
  image: Nullable(ImageObject),
  locale: Type.String({ description: 'The langid.' }),
  modified_date: Timestamp,
  prereq_modified_date: Timestamp,
  public: Type.Boolean(),
  revisionid: Type.Integer(),
  subject: Type.String(),
  title: Type.String(),
  type: Type.String(),
  url: Type.String({ description: 'Absolute link to the guide\'s HTML page.' }),
  userid: Type.Integer({ description: 'The owner.' }),
  username: Type.String(),
});
export type LightGuide = Static<typeof LightGuide>;

export const Prerequisite = Type.Object({
  dataType: Type.Literal('guide'),
  guideid: Type.Integer(),
  locale: Type.String(),
  revisionid: Type.Integer(),
  modified_date: Timestamp,
  prereq_modified_date: Timestamp,
  url: Type.String(),
  type: Type.String(),
  category: Type.String(),
  subject: Type.String(),
  title: Type.String(),
  summary: Type.String(),
  difficulty: Type.String(),
  time_required_max: Type.Integer({ description: 'Seconds.' }),
  public: Type.Boolean(),
  userid: Type.Integer(),
  username: Type.String(),
  flags: flagsField,
  image: Nullable(ImageObject),
});

export const Item = Type.Object({
  type: StringEnum(['part', 'tool'] as const),
  title: Type.String({ description: 'Title of the ITEM wiki.' }),
  wikiid: Nullable(Type.Integer()),
  quantity: Type.Integer(),
  notes: Type.String(),
  url: Type.String(),
});

export const GuideDocument = Type.Object({ documentid: Type.Integer(), url: Type.String({ description: 'Where the PDF is served.' }) }, { description: 'A document of the media library (a PDF uploaded to /user/media/uploads).' });

/** The full guide record: the specification's fields up to `steps`, then the rest. */
export const FullGuide = Type.Object({
  conclusion_raw: Type.String(),
  conclusion_rendered: Type.String(),
  difficulty: Type.String({ description: `One of: ${DIFFICULTIES.join(', ')}; empty when not set.` }),
  documents: Type.Array(GuideDocument),
  flags: flagsField,
  guideid: Type.Integer(),
  image: Nullable(ImageObject),
  introduction_raw: Type.String(),
  introduction_rendered: Type.String(),
  featured_document_embed_url: Nullable(Type.String({ description: 'The first document\'s file URL (a PDF a client can embed); null without documents.' })),
  featured_document_thumbnail_url: Nullable(Type.String({ description: 'Always null: no thumbnails are made of documents.' })),
  locale: Type.String(),
  parts: Type.Array(Item),
  prerequisites: Type.Array(Prerequisite),
  steps: Type.Array(Step),
  // The specification does not show the fields after `steps`; these are ours.
  title: Type.String(),
  subject: Type.String(),
  type: Type.String(),
  category: Type.String(),
  summary: Type.String(),
  url: Type.String(),
  public: Type.Boolean(),
  revisionid: Type.Integer({ description: 'Guide PATCH/DELETE, public, steps, steporder and tag edits take it as ?revisionid=.' }),
  modified_date: Timestamp,
  prereq_modified_date: Timestamp,
  created_date: Timestamp,
  published_date: Nullable(Timestamp),
  time_required: Type.String(),
  time_required_min: Type.Integer({ description: 'Seconds.' }),
  time_required_max: Type.Integer({ description: 'Seconds.' }),
  tools: Type.Array(Item),
  tags: Type.Array(Type.String()),
  userid: Type.Integer({ description: 'The owner.' }),
  username: Type.String(),
  dataType: Type.Literal('guide'),
});
export type FullGuide = Static<typeof FullGuide>;

export const Release = Type.Object({
  releaseid: Type.Integer(),
  guideid: Type.Integer(),
  langid: Type.String(),
  revisionid: Type.Integer({ description: 'The guide revision released.' }),
  user: Nullable(UserSummary),
  status: Type.String({ description: 'released or removed; under an approval process pending (until its request is decided), then released, rejected or cancelled.' }),
  title: Type.String({ description: 'The guide\'s title at that revision.' }),
  init_date: Timestamp,
  release_date: Nullable(Timestamp),
  notes: Type.String(),
  type: Type.String({ description: 'major or minor.' }),
  href: Type.String({ description: 'The released revision in the API.' }),
  version: Nullable(Type.String()),
  approval_requestid: Type.Optional(Type.Integer({ description: 'The approval request deciding a release made under an approval process.' })),
});
export type Release = Static<typeof Release>;
export const ReleaseList = Type.Object({ releases: Type.Array(Release) });

export const Flag = Type.Object({ flagid: Type.String(), image: Type.String(), title: Type.String(), text: Type.String() });

export const CompletionStatus = Type.Object({
  guideid: Type.Integer(),
  langid: Type.String(),
  userid: Type.Integer(),
  completed: Type.Boolean(),
  completed_date: Nullable(Timestamp),
});
export const FavoriteStatus = Type.Object({
  guideid: Type.Integer(),
  langid: Type.String(),
  userid: Type.Integer(),
  favorited: Type.Boolean(),
  favorited_date: Nullable(Timestamp),
});

// ---- requests ----

const ItemInput = Type.Union([
  Type.String({ minLength: 1, maxLength: 255 }),
  Type.Object({
    title: Type.String({ minLength: 1, maxLength: 255 }),
    quantity: Type.Optional(Id({ maximum: 9999 })),
    notes: Type.Optional(Type.String({ maxLength: 1000 })),
  }, { additionalProperties: false }),
], { description: 'The title of an ITEM wiki, or {title, quantity, notes}.' });
export type ItemInput = Static<typeof ItemInput>;

export function guideBodyFields(types: readonly string[]) {
  return {
    type: StringEnum(types, { description: 'One of the site\'s guide types.' }),
    category: Type.String({ minLength: 1, maxLength: 255, description: 'Title of a CATEGORY wiki (422 when there is none).' }),
    title: Type.String({ minLength: 1, maxLength: 255, description: 'Default on create: "<category> <subject> <Type>".' }),
    subject: Type.String({ maxLength: 255 }),
    introduction: Type.String({ maxLength: 100_000, description: 'Wiki syntax.' }),
    conclusion: Type.String({ maxLength: 100_000, description: 'Wiki syntax.' }),
    summary: Type.String({ maxLength: 1000 }),
    difficulty: Type.String({ maxLength: 40, description: `${DIFFICULTIES.join(', ')} (any case), or empty.` }),
    time_required: Type.String({ maxLength: 100, description: 'Free text, e.g. "15 - 30 minutes"; default from the min and max.' }),
    time_required_min: Type.Integer({ minimum: 0, maximum: 10_000_000, description: 'Seconds.' }),
    time_required_max: Type.Integer({ minimum: 0, maximum: 10_000_000, description: 'Seconds; not below time_required_min.' }),
    public: Type.Boolean(),
    prerequisites: Type.Array(Id(), { maxItems: 50, description: 'guideids.' }),
    parts: Type.Array(ItemInput, { maxItems: 200 }),
    tools: Type.Array(ItemInput, { maxItems: 200 }),
    documents: Type.Array(Id(), { maxItems: 50, description: 'Ids of documents in the media library (PDFs uploaded to /user/media/uploads; 422 for an unknown one); read back as {documentid, url}.' }),
    imageid: Nullable(Id({ description: 'The guide\'s image; default: the first image of the first step.' })),
  };
}

export function guideCreateBody(types: readonly string[], languages: readonly string[]) {
  const f = guideBodyFields(types);
  return Type.Object({
    type: f.type,
    category: f.category,
    title: Type.Optional(f.title),
    subject: Type.Optional(f.subject),
    introduction: Type.Optional(f.introduction),
    conclusion: Type.Optional(f.conclusion),
    summary: Type.Optional(f.summary),
    difficulty: Type.Optional(f.difficulty),
    time_required: Type.Optional(f.time_required),
    time_required_min: Type.Optional(f.time_required_min),
    time_required_max: Type.Optional(f.time_required_max),
    public: Type.Optional(f.public),
    prerequisites: Type.Optional(f.prerequisites),
    parts: Type.Optional(f.parts),
    tools: Type.Optional(f.tools),
    documents: Type.Optional(f.documents),
    imageid: Type.Optional(f.imageid),
    tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 50 })),
    langid: Type.Optional(StringEnum(languages, { description: 'Default: the site\'s default language.' })),
    guideid: Type.Optional(Id({ description: 'Creates a translation of this guide in `langid`.' })),
  }, { additionalProperties: false });
}

export function guidePatchBody(types: readonly string[]) {
  return Type.Partial(Type.Object(guideBodyFields(types)), { additionalProperties: false, minProperties: 1 });
}

export const LineInput = Type.Object({
  text: Type.String({ maxLength: 10_000, description: 'Wiki syntax; not blank.' }),
  bullet: Type.Optional(Type.String({ maxLength: 40, description: 'A bullet style name (default black).' })),
  bullet_styleid: Type.Optional(Id()),
  level: Type.Optional(Type.Integer({ minimum: 0, maximum: 3, description: 'Indentation, 0 to 3; the first line is at 0.' })),
  lineid: Type.Optional(Nullable(Id({ description: 'Keeps the id of an existing line of the step.' }))),
}, { additionalProperties: false });
export type LineInput = Static<typeof LineInput>;

export const MediaInput = Type.Object({
  type: StringEnum(['image', 'video', 'object'] as const, { description: 'image with an array of imageids; object (or video) with one videoid.' }),
  data: Type.Union([Type.Array(Id(), { maxItems: 20 }), Id()]),
}, { additionalProperties: false });
export type MediaInput = Static<typeof MediaInput>;

const Lines = Type.Array(LineInput, { minItems: 1, maxItems: 200 });

export const StepCreate = Type.Object({
  title: Type.Optional(Type.String({ maxLength: 255 })),
  orderby: Type.Optional(Id({ description: 'Position, from 1; default: after the last step.' })),
  lines: Lines,
  media: Type.Optional(Nullable(MediaInput)),
  fields: Type.Optional(FormFieldsInput),
}, { additionalProperties: false });
export type StepCreate = Static<typeof StepCreate>;

export const StepPatch = Type.Object({
  title: Type.Optional(Type.String({ maxLength: 255 })),
  orderby: Type.Optional(Id({ description: 'Moves the step to this position.' })),
  lines: Type.Optional(Lines),
  media: Type.Optional(Nullable(MediaInput)),
  fields: Type.Optional(FormFieldsInput),
}, { additionalProperties: false, minProperties: 1 });
export type StepPatch = Static<typeof StepPatch>;

export const LangQuery = (languages: readonly string[]) => Type.Optional(StringEnum(languages, { description: 'The guide\'s language; default: the site\'s default language when the guide has it, else its first.' }));

export const Revisionid = Id({ description: 'The current revisionid (409 with the current version when it is not).' });

export function guideListQuery(types: readonly string[], languages: readonly string[]) {
  return Type.Object({
    ...OffsetLimit,
    order: Type.Optional(Order),
    guideids: Type.Optional(Type.String({ pattern: '^\\s*\\d{1,10}(\\s*,\\s*\\d{1,10}){0,199}\\s*$', description: 'Comma-separated guideids (up to 200).' })),
    filter: Type.Optional(StringEnum(types, { description: 'Only guides of this type.' })),
    modifiedSince: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER, description: 'UNIX time: only guides modified since.' })),
    includePrivate: Type.Optional(Type.Boolean({ description: 'Admins only (403 otherwise): private guides too.' })),
    langid: Type.Optional(StringEnum(languages, { description: 'Only this language (default: all).' })),
  });
}
