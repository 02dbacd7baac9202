import { Type, type Static } from '@sinclair/typebox';
import { Id, Nullable, OffsetLimit, Order, Timestamp } from '../../http/schemas.js';
import { LangidString } from '../comments/comments.schemas.js';

export const GlossaryTranslation = Type.Object({
  langid: Type.String({ description: 'A site language other than the entry\'s source language.' }),
  term: Type.String({ description: 'The term in that language.' }),
}, { description: 'One translation of an entry\'s term.' });

/** The glossary entry record (the specification does not show its fields: this is the design). */
export const GlossaryEntry = Type.Object({
  entryid: Type.Integer(),
  source_langid: Type.String({ description: 'The language of `term`.' }),
  term: Type.String({ description: 'The term in the source language; unique per source language, case-insensitively.' }),
  translations: Type.Array(GlossaryTranslation, { description: 'At most one per language, ordered by langid.' }),
  notes: Type.String({ description: 'Guidance for translators (usage, context); may be empty.' }),
  created_date: Timestamp,
  modified_date: Timestamp,
  userid_modified: Nullable(Type.Integer({ description: 'Who last added or changed the entry.' })),
}, { description: 'A translation glossary entry: a term in a source language and how it is translated into the site\'s other languages. The default machine translator replaces glossary terms (whole words, case-insensitively) with their translations.' });
export type GlossaryEntry = Static<typeof GlossaryEntry>;

const TermString = Type.String({ maxLength: 255, description: 'Trimmed; 1 to 255 characters.' });

export const GlossaryTranslationInput = Type.Object({
  langid: LangidString,
  term: TermString,
}, { additionalProperties: false });

export const GlossaryEntryInput = Type.Object({
  entryid: Type.Optional(Id({ description: 'Modify this entry; without it, a new entry is added.' })),
  source_langid: Type.Optional(LangidString),
  term: Type.Optional(TermString),
  notes: Type.Optional(Type.String({ maxLength: 2000 })),
  translations: Type.Optional(Type.Array(GlossaryTranslationInput, { maxItems: 50, description: 'The entry\'s complete list of translations: it replaces the stored one (translations left out are removed).' })),
}, { additionalProperties: false });
export type GlossaryEntryInput = Static<typeof GlossaryEntryInput>;

export const GlossaryPut = Type.Object({
  entries: Type.Optional(Type.Array(GlossaryEntryInput, { maxItems: 200, description: 'Entries to add (no entryid) or modify (with entryid).' })),
  delete: Type.Optional(Type.Array(Id(), { maxItems: 200, description: 'entryids to delete.' })),
}, { additionalProperties: false });
export type GlossaryPut = Static<typeof GlossaryPut>;

export const GlossaryPutResult = Type.Object({
  entries: Type.Array(GlossaryEntry, { description: 'The added and modified entries, in the order they were sent.' }),
  deleted: Type.Array(Type.Integer(), { description: 'The deleted entryids.' }),
});

export const GlossaryListQuery = Type.Object({
  source_langid: Type.Optional(LangidString),
  langid: Type.Optional({ ...LangidString, description: 'Only entries with a translation into this language.' }),
  order: Type.Optional(Order),
  offset: OffsetLimit.offset,
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, description: 'Items to return, 1 to 200; without it, every entry (the specification: "All glossary entries").' })),
});
