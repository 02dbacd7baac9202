// What a performer may record in a form field, and how it is stored: always a string
// (numbers as written, a checkbox "1" or "0"), as the work log's clients read it back.
import type { FieldError } from '../../http/errors.js';
import type { FormField } from '../guides/guides.fields.js';

const TRUE = new Set(['1', 'true', 'on', 'yes']);
const FALSE = new Set(['0', 'false', 'off', 'no']);

/**
 * The stored string for a value sent for `field`, null to remove the value (null or an
 * empty string), or the error naming `name`.
 */
export function storedValue(field: FormField, name: string, value: string | number | boolean | null): { value: string | null } | { error: FieldError } {
  if (value === null || value === '') return { value: null };
  const bad = (message: string) => ({ error: { field: name, code: 'invalid_value', message } });
  switch (field.type) {
    case 'checkbox': {
      const text = String(value).trim().toLowerCase();
      if (value === true || TRUE.has(text)) return { value: '1' };
      if (value === false || FALSE.has(text)) return { value: '0' };
      return bad(`"${field.label}" is a checkbox: send true or false (or "1" or "0").`);
    }
    case 'number': {
      const text = typeof value === 'boolean' ? '' : String(value).trim();
      if (text === '' || !Number.isFinite(Number(text))) return bad(`"${field.label}" takes a number.`);
      return { value: text };
    }
    case 'choice': {
      const text = typeof value === 'boolean' ? (value ? '1' : '0') : String(value).trim();
      if (!field.options.includes(text)) return bad(`"${field.label}" takes one of: ${field.options.join(', ')}.`);
      return { value: text };
    }
    default:
      return { value: typeof value === 'boolean' ? (value ? '1' : '0') : String(value) };
  }
}

/** Whether a required field counts as filled: any value, and for a checkbox, checked. */
export const fillsRequired = (field: FormField, value: string | undefined) =>
  value !== undefined && value !== '' && (field.type !== 'checkbox' || value === '1');
