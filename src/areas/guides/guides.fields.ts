// Form fields on steps (an extension of the specification, which has none): data a
// performer records while doing a step (text, number, checkbox, choice), with a label,
// a required flag and, for a choice, its options. Each version of a field is an
// immutable row of guide_step_fields: a field keeps its field_revisionid while it is
// unchanged, and any change of its type, label, options or required flag gives it a new
// one. A step lists its current fields (guide_steps.fields) and each step revision keeps
// the list, so a guide revision names exactly the form its work log entries record.
import { Type, type Static } from '@sinclair/typebox';
import { Id, StringEnum } from '../../http/schemas.js';
import { unprocessable, type FieldError } from '../../http/errors.js';
import type { Db } from './guides.queries.js';

export const FIELD_TYPES = ['text', 'number', 'checkbox', 'choice'] as const;
export type FieldType = (typeof FIELD_TYPES)[number];

export const FormField = Type.Object({
  field_revisionid: Type.Integer({ description: 'This version of the field: unchanged while the field is; any change of its type, label, options or required flag in a new revision gives a new one.' }),
  type: StringEnum(FIELD_TYPES, { description: 'text, number, checkbox or choice.' }),
  label: Type.String(),
  required: Type.Boolean({ description: 'Finishing a work log entry needs a value (a checkbox: checked).' }),
  options: Type.Array(Type.String(), { description: 'The choices of a choice field; [] for the other types.' }),
}, { description: 'A form field of a step (extension): what a performer records on it in the work log.' });
export type FormField = Static<typeof FormField>;

export const FormFieldInput = Type.Object({
  field_revisionid: Type.Optional(Id({ description: 'A current field of the step this one continues: kept when nothing changed, else a new version.' })),
  type: StringEnum(FIELD_TYPES),
  label: Type.String({ maxLength: 255 }),
  required: Type.Optional(Type.Boolean({ default: false })),
  options: Type.Optional(Type.Array(Type.String({ maxLength: 255 }), { maxItems: 100, description: 'Choices of a choice field (at least one, distinct); not for other types.' })),
}, { additionalProperties: false });
export type FormFieldInput = Static<typeof FormFieldInput>;

export const FormFieldsInput = Type.Array(FormFieldInput, {
  maxItems: 50,
  description: 'Extension: the step\'s form fields, in order, replacing the current ones. A field identical to a current one (or naming it with `field_revisionid` and unchanged) keeps its field_revisionid; a changed or new one gets a new one.',
});

export interface FieldValues { named: number | null; type: FieldType; label: string; required: boolean; options: string[] }

/** Checks form fields: a label, distinct options for a choice field and none for the others. */
export function validateFields(fields: FormFieldInput[], field = 'fields'): FieldValues[] {
  const errors: FieldError[] = [];
  const out = fields.map((f, i) => {
    const label = f.label.trim();
    if (!label) errors.push({ field: `${field}[${i}].label`, code: 'invalid_value', message: 'A field\'s label must not be blank.', index: i });
    const options = (f.options ?? []).map((o) => o.trim());
    if (f.type === 'choice') {
      if (options.length === 0) errors.push({ field: `${field}[${i}].options`, code: 'missing_field', message: 'A choice field needs at least one option.', index: i });
      if (options.some((o) => !o)) errors.push({ field: `${field}[${i}].options`, code: 'invalid_value', message: 'Options must not be blank.', index: i });
      if (new Set(options).size !== options.length) errors.push({ field: `${field}[${i}].options`, code: 'duplicate', message: 'Options must be distinct.', index: i });
    } else if (options.length) {
      errors.push({ field: `${field}[${i}].options`, code: 'invalid_value', message: `A ${f.type} field takes no options.`, index: i });
    }
    return { named: f.field_revisionid ?? null, type: f.type, label, required: f.required ?? false, options };
  });
  if (errors.length) throw unprocessable(errors);
  return out;
}

const sameField = (a: FormField, b: FieldValues) =>
  a.type === b.type && a.label === b.label && a.required === b.required && a.options.length === b.options.length && a.options.every((o, i) => o === b.options[i]);

function fieldRecord(r: { field_revisionid: number; type: string; label: string; required: number; options: string }): FormField {
  let options: string[] = [];
  try {
    const parsed: unknown = JSON.parse(r.options);
    if (Array.isArray(parsed)) options = parsed.filter((o): o is string => typeof o === 'string');
  } catch {
    // a row written by hand: no options
  }
  return { field_revisionid: r.field_revisionid, type: r.type as FieldType, label: r.label, required: r.required === 1, options };
}

/** Field records by field_revisionid, in one query. */
export async function loadFields(db: Db, ids: number[]): Promise<Map<number, FormField>> {
  const unique = [...new Set(ids)];
  const out = new Map<number, FormField>();
  for (let i = 0; i < unique.length; i += 500) {
    const rows = await db.selectFrom('guide_step_fields').select(['field_revisionid', 'type', 'label', 'required', 'options'])
      .where('field_revisionid', 'in', unique.slice(i, i + 500)).execute();
    for (const r of rows) out.set(r.field_revisionid, fieldRecord(r));
  }
  return out;
}

/** The field_revisionids a step lists (guide_steps.fields or a snapshot's). */
export function fieldIdsOf(json: string | number[] | undefined | null): number[] {
  if (Array.isArray(json)) return json;
  if (!json) return [];
  try {
    const parsed: unknown = JSON.parse(json);
    return Array.isArray(parsed) ? parsed.filter((x): x is number => Number.isInteger(x)) : [];
  } catch {
    return [];
  }
}

/**
 * Sets a step's form fields (inside the step's transaction): a field naming a current
 * field, or identical to one, keeps it when unchanged; every other one is a new version.
 * A `field_revisionid` that is not one of the step's current fields is a 422.
 */
export async function writeFields(trx: Db, stepid: number, fields: FieldValues[], now: number): Promise<void> {
  const step = await trx.selectFrom('guide_steps').select('fields').where('stepid', '=', stepid).executeTakeFirstOrThrow();
  const currentIds = fieldIdsOf(step.fields);
  const current = await loadFields(trx, currentIds);
  const errors: FieldError[] = [];
  fields.forEach((f, i) => {
    if (f.named !== null && !currentIds.includes(f.named)) {
      errors.push({ field: `fields[${i}].field_revisionid`, code: 'invalid_value', message: `Field ${f.named} is not a current field of this step.`, index: i });
    }
  });
  if (errors.length) throw unprocessable(errors);
  const used = new Set<number>();
  const ids: number[] = [];
  for (const f of fields) {
    const candidates = f.named !== null ? [f.named] : currentIds;
    const keep = candidates.find((id) => !used.has(id) && current.has(id) && sameField(current.get(id)!, f));
    if (keep !== undefined) {
      used.add(keep);
      ids.push(keep);
      continue;
    }
    const row = await trx.insertInto('guide_step_fields').values({
      stepid, type: f.type, label: f.label, required: f.required ? 1 : 0, options: JSON.stringify(f.options), created_date: now,
    }).returning('field_revisionid').executeTakeFirstOrThrow();
    ids.push(row.field_revisionid);
  }
  await trx.updateTable('guide_steps').set({ fields: JSON.stringify(ids) }).where('stepid', '=', stepid).execute();
}
