import { Type, type Static } from '@sinclair/typebox';
import { ImageObject, Nullable, OffsetLimit, StringEnum } from '../../http/schemas.js';
import { UserSummary } from '../users/users.schemas.js';
import { TeamSummary } from '../teams/teams.schemas.js';
import { LightGuide } from '../guides/guides.schemas.js';

/** The six namespaces of wiki pages (COURSE records belong to the courses area). */
export const NAMESPACES = ['CATEGORY', 'ITEM', 'TEAM', 'USER', 'INFO', 'WIKI'] as const;
export type Namespace = (typeof NAMESPACES)[number];
export const NamespaceParam = StringEnum(NAMESPACES, { description: 'CATEGORY, ITEM, TEAM, USER, INFO or WIKI.' });

export const Langid = Type.String({ pattern: '^[a-z]{2,3}(-[A-Za-z0-9]{2,8})?$', maxLength: 16, description: 'A language id of the site (the LANGUAGES setting), e.g. en, de.' });

export const ITEM_TYPES = ['part', 'tool'] as const;

export const Supplier = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  url: Nullable(Type.String({ maxLength: 2000 })),
  price: Nullable(Type.String({ maxLength: 50, description: 'As shown, e.g. "12.50".' })),
  currency: Nullable(Type.String({ maxLength: 10 })),
  sku: Nullable(Type.String({ maxLength: 100, description: 'The supplier\'s part number.' })),
}, { additionalProperties: false });
export type Supplier = Static<typeof Supplier>;

/** The specification's light wiki record: exactly these fields. */
export const WikiLight = Type.Object({
  dataType: Type.Literal('wiki'),
  wikiid: Type.Integer(),
  title: Type.String(),
  display_title: Type.String({ description: 'The title shown; the title itself when the wiki has none.' }),
  namespace: Type.String(),
  summary: Type.String(),
  url: Type.String(),
  text: Type.String({ description: 'The start of the contents as plain text (at most 200 characters).' }),
  image: Nullable(ImageObject),
}, { description: 'Light wiki record.' });
export type WikiLight = Static<typeof WikiLight>;


/** The full wiki record: the specification's fields, then further ones by namespace. */
export const WikiFull = Type.Object({
  wikiid: Type.Integer(),
  langid: Type.String({ description: 'The language of the texts returned (the translation asked for, or the source language).' }),
  url: Type.String({ description: 'The wiki\'s address in this API.' }),
  fullUrl: Type.String({ description: 'The address of the wiki in the language returned.' }),
  editUrl: Type.String({ description: 'Where to PATCH this version: the address with `langid` and the current `revisionid`.' }),
  namespace: Type.String(),
  title: Type.String({ description: 'With the namespace, identifies the wiki; TEAM: the teamid, USER: the userid.' }),
  revisionid: Type.Integer({ description: 'Current revision of the language returned; pass it back on every modifying request.' }),
  contents_raw: Type.String({ description: 'Wiki syntax.' }),
  contents_json: Type.Unknown({ description: 'The contents as a document tree: nodes with type, attrs, content, marks, text.' }),
  contents_rendered: Type.String({ description: 'HTML.' }),
  display_title: Type.String(),
  description: Type.String({ description: 'A short summary (the light record\'s `summary`).' }),
  image: Nullable(ImageObject),
  table_of_contents: Type.Boolean(),
  source_langid: Type.String({ description: 'The language the wiki was written in.' }),
  translations: Type.Array(Type.String(), { description: 'Languages the wiki has texts in, the source language first.' }),
  tags: Type.Array(Type.String()),
  author: Nullable(UserSummary),
  created_date: Type.Integer(),
  modified_date: Type.Integer(),
  can_edit: Type.Boolean({ description: 'Whether the caller may edit this wiki.' }),
  // CATEGORY
  parent: Type.Optional(Nullable(Type.String({ description: 'CATEGORY: the parent category\'s title; null at the top.' }))),
  children: Type.Optional(Type.Array(Type.String(), { description: 'CATEGORY: the child categories\' titles, alphabetically.' })),
  guides: Type.Optional(Type.Array(LightGuide, { description: 'CATEGORY: the first 20 public guides of the category in this language (all: .../documents).' })),
  stub: Type.Optional(Type.Boolean({ description: 'CATEGORY: a placeholder not yet written; hidden from the hierarchy unless includeStubs.' })),
  identification_raw: Type.Optional(Type.String({ description: 'CATEGORY: how to identify the device, wiki syntax.' })),
  identification_rendered: Type.Optional(Type.String()),
  // ITEM
  item_type: Type.Optional(Nullable(StringEnum(ITEM_TYPES, { description: 'ITEM: part or tool.' }))),
  suppliers: Type.Optional(Type.Array(Supplier, { description: 'ITEM: where to buy it.' })),
  // TEAM, USER
  team: Type.Optional(Nullable(TeamSummary)),
  user: Type.Optional(Nullable(UserSummary)),
}, { description: 'Full wiki record. Namespace fields: CATEGORY parent, children, guides, stub, identification_*; ITEM item_type, suppliers; TEAM team; USER user.' });
export type WikiFull = Static<typeof WikiFull>;

const ContentsJson = Type.Object({ type: Type.String() }, {
  additionalProperties: true,
  description: 'The contents as a document tree, instead of `contents` (sending both is a 422): the platform editor\'s ProseMirror JSON, '
    + '`{"type": "doc", "content": [...]}` with nodes paragraph, text, hard_break, heading {level}, code_block, blockquote {format, attribute: a paragraph node or null}, '
    + 'image {imageid, size, align}, video {videoid}, internal_link, ordered_list {order}, bullet_list, list_item and marks em, strong, underline, subscript, '
    + 'superscript, code, strikethrough, link {href, title, target}. Stored as the wiki syntax the editor writes for it (see docs/wiki-syntax.md).',
});

const writable = {
  contents: Type.Optional(Type.String({ maxLength: 1_000_000, description: 'Wiki syntax (docs/wiki-syntax.md). Or send `contents_json` instead; both at once is a 422.' })),
  contents_json: Type.Optional(ContentsJson),
  display_title: Type.Optional(Type.String({ maxLength: 255, description: 'Shown instead of the title; "" removes it.' })),
  description: Type.Optional(Type.String({ maxLength: 5000 })),
  image: Type.Optional(Nullable(Type.Integer({ minimum: 1, description: 'An imageid; null removes the image.' }))),
  table_of_contents: Type.Optional(Type.Boolean()),
  parent: Type.Optional(Nullable(Type.String({ maxLength: 255, description: 'CATEGORY only (at creation): the parent category\'s title.' }))),
  stub: Type.Optional(Type.Boolean({ description: 'CATEGORY only.' })),
  identification: Type.Optional(Type.String({ maxLength: 100_000, description: 'CATEGORY only: wiki syntax.' })),
  item_type: Type.Optional(StringEnum(ITEM_TYPES, { description: 'ITEM only.' })),
  suppliers: Type.Optional(Type.Array(Supplier, { maxItems: 50, description: 'ITEM only.' })),
};

export const WikiCreate = Type.Object({
  namespace: NamespaceParam,
  title: Type.String({ minLength: 1, maxLength: 255, description: 'TEAM: a teamid; USER: a userid. No "/" and no control characters.' }),
  langid: Type.Optional(Langid),
  ...writable,
}, { additionalProperties: false });
export type WikiCreate = Static<typeof WikiCreate>;

export const WikiPatch = Type.Object({ ...writable }, { additionalProperties: false, description: 'Only the fields sent change. A translation (`langid` other than the source language) takes display_title, description, contents (or contents_json) and identification only; parent changes through PUT .../parent.' });
export type WikiPatch = Static<typeof WikiPatch>;

export const WikiParams = Type.Object({ namespace: NamespaceParam, title: Type.String({ minLength: 1, maxLength: 255 }) });
export const CategoryParams = Type.Object({ title: Type.String({ minLength: 1, maxLength: 255 }) });

export const RevisionQuery = Type.Object({
  revisionid: Type.Integer({ minimum: 0, description: 'The current revisionid of the version being changed (409 with the current wiki otherwise).' }),
  langid: Type.Optional(Langid),
});
export const TagQuery = Type.Object({
  ...RevisionQuery.properties,
  tag: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'For clients that cannot send a body with DELETE.' })),
});
export const GetQuery = Type.Object({
  langid: Type.Optional(Langid),
  revisionid: Type.Optional(Type.Integer({ minimum: 1, description: 'An earlier revision of that language to show.' })),
});

export const ListQuery = Type.Object({
  display: Type.Optional(StringEnum(['hierarchy', 'titles'] as const, { description: 'hierarchy (CATEGORY only): the category tree; titles: the titles only.' })),
  modifiedSince: Type.Optional(Type.Integer({ minimum: 0 })),
  langid: Type.Optional(Langid),
  requireGuides: Type.Optional(Type.Boolean({ default: false, description: 'hierarchy: only categories with public guides (and their ancestors).' })),
  includeStubs: Type.Optional(Type.Boolean({ default: false, description: 'hierarchy: include stub categories.' })),
  machineTranslateLangid: Type.Optional(Langid),
  ...OffsetLimit,
});

export const Hierarchy = Type.Object({
  hierarchy: Type.Record(Type.String(), Type.Unknown(), { description: 'Category title to its children object, or null for a leaf.' }),
  display_titles: Type.Record(Type.String(), Type.String(), { description: 'Category title to display title.' }),
});

export const TagBody = Type.Object({ tag: Type.String({ minLength: 1, maxLength: 100 }) }, { additionalProperties: false });

export const ParentBody = Type.Object({
  parent: Nullable(Type.String({ minLength: 1, maxLength: 255, description: 'The new parent category\'s title; null moves the category to the top.' })),
}, { additionalProperties: false });

export const RevertBody = Type.Object({
  target_revisionid: Type.Integer({ minimum: 1, description: 'The earlier revision (of the same wiki and language) whose content becomes current again.' }),
}, { additionalProperties: false });

export const Identification = Type.Object({
  wikiid: Type.Integer(),
  title: Type.String(),
  display_title: Type.String(),
  langid: Type.String(),
  revisionid: Type.Integer(),
  identification_raw: Type.String(),
  identification_rendered: Type.String(),
  image: Nullable(ImageObject),
});

export const RevisionItem = Type.Object({
  revisionid: Type.Integer(),
  langid: Type.String(),
  action: Type.String({ description: 'create, edit, translate, revert or parent.' }),
  user: Nullable(UserSummary),
  date: Type.Integer(),
  display_title: Type.String(),
});

/** The specification's release record; for a wiki `guideid` is null and `wikiid` is added. */
export const WikiRelease = Type.Object({
  releaseid: Type.Integer(),
  guideid: Type.Null(),
  wikiid: Type.Integer(),
  langid: Type.String(),
  revisionid: Type.Integer(),
  user: Nullable(UserSummary),
  status: StringEnum(['released', 'removed'] as const),
  title: Type.String(),
  init_date: Type.Integer(),
  release_date: Nullable(Type.Integer()),
  notes: Type.String(),
  type: StringEnum(['major', 'minor'] as const),
  href: Type.String({ description: 'Where the released revision is read.' }),
  version: Nullable(Type.String()),
});
export type WikiRelease = Static<typeof WikiRelease>;

export const ReleaseBody = Type.Object({
  langid: Type.Optional(Langid),
  title: Type.Optional(Type.String({ maxLength: 255, description: 'Default: the display title.' })),
  notes: Type.Optional(Type.String({ maxLength: 10000 })),
  type: Type.Optional(StringEnum(['major', 'minor'] as const, { default: 'major' })),
  version: Type.Optional(Type.String({ minLength: 1, maxLength: 50, description: 'Default: the next major (N.0) or minor (N.M) version.' })),
}, { additionalProperties: false });
