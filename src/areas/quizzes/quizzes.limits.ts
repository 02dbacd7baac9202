// What a quiz may cost: limits on a quiz JSON checked before survey-core sees it (its
// expression parser and its model's condition runs are superlinear in what they are given:
// a 128 KB quiz of `*If` expressions held the server for seconds, at import and at every
// submission). One pass over the JSON, without recursion, stopping at the first limit
// passed, so the check itself is linear in the quiz and bounded by MAX_QUIZ_BYTES.
import type { FieldError } from '../../http/errors.js';

/** The quiz JSON, measured as JSON text (about: escapes in strings are not counted). */
export const MAX_QUIZ_BYTES = 256 * 1024;
/** Nesting of objects and arrays, the quiz object being depth 1 (elements[i].validators[j].text is 5). */
export const MAX_QUIZ_DEPTH = 8;
/** Elements (questions, html, image) of a quiz. */
export const MAX_ELEMENTS = 200;
/** Choices of one question. */
export const MAX_CHOICES = 100;
/** One expression (visibleIf, enableIf, ...Expression, expression), in characters. */
export const MAX_EXPRESSION_LENGTH = 1000;
/** Terms of one expression: variables, values, function names and operators. */
export const MAX_EXPRESSION_TERMS = 100;
/** Brackets and parentheses open at once in one expression. */
export const MAX_EXPRESSION_NESTING = 8;
/** Terms of all the expressions of a quiz together. */
export const MAX_QUIZ_EXPRESSION_TERMS = 2000;

/** A property holding a SurveyJS expression: `visibleIf`, `enableIf`, `setValueExpression`, a validator's or trigger's `expression`. */
export const isExpressionKey = (key: string) => key.endsWith('If') || key.endsWith('Expression') || key === 'expression';

export interface ExpressionMeasure {
  terms: number;
  nesting: number;
}

/**
 * Terms and deepest nesting of an expression, by one scan of its text (not a parse: text the
 * parser refuses is measured too, and refused by it afterwards within these bounds).
 */
export function measureExpression(text: string): ExpressionMeasure {
  let terms = 0;
  let depth = 0;
  let nesting = 0;
  let i = 0;
  const n = text.length;
  const word = /[\w.$@]/;
  const operator = /[=!<>+\-*/%^&|~]/;
  while (i < n) {
    const c = text[i];
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r' || c === ',') { i++; continue; }
    if (c === '(' || c === '[') { nesting = Math.max(nesting, ++depth); i++; continue; }
    if (c === ')' || c === ']') { depth = Math.max(0, depth - 1); i++; continue; }
    terms++;
    if (c === '{') {
      const end = text.indexOf('}', i + 1);
      i = end < 0 ? n : end + 1;
    } else if (c === '\'' || c === '"') {
      i++;
      while (i < n && text[i] !== c) i += text[i] === '\\' ? 2 : 1;
      i++;
    } else if (word.test(c)) {
      while (i < n && word.test(text[i])) i++;
    } else if (operator.test(c)) {
      while (i < n && operator.test(text[i])) i++;
    } else i++;
  }
  return { terms, nesting };
}

interface Visit {
  value: unknown;
  key: string;
  /** Where the value is: its key or index in `parent` (the path a 422 names is built from these only on failure). */
  at: string | number;
  parent?: Visit;
  depth: number;
  /** The element the value is in: its index and a label for messages. */
  element?: { index: number; label: string };
}

function pathOf(v: Visit, field: string): string {
  let path = '';
  for (let x: Visit | undefined = v; x?.parent; x = x.parent) path = (typeof x.at === 'number' ? `[${x.at}]` : `.${x.at.slice(0, 100)}`) + path;
  return field + path;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The first limit a quiz JSON passes, as a 422 error naming where (`too_long` for sizes,
 * `too_complex` for counts and nesting); empty within every limit.
 */
export function checkQuizLimits(json: unknown, field = 'quiz_json'): FieldError[] {
  let bytes = 0;
  let quizTerms = 0;
  const stack: Visit[] = [{ value: json, key: '', at: '', depth: 1 }];
  const fail = (v: Visit, code: 'too_long' | 'too_complex', what: string): FieldError[] => {
    const at = v.element ? `Element ${v.element.index}${v.element.label}: ` : '';
    return [{ field: pathOf(v, field), code, message: `${at}${what}`, ...(v.element ? { index: v.element.index } : {}) }];
  };
  while (stack.length) {
    const v = stack.pop()!;
    const { value } = v;
    // about the JSON text: a member's key, quotes and colon, a separating comma, the value
    bytes += (v.parent && typeof v.at === 'string' ? v.at.length + 3 : 0) + 1;
    if (typeof value === 'string') {
      bytes += value.length + 2;
      if (isExpressionKey(v.key)) {
        const key = v.key.slice(0, 100);
        if (value.length > MAX_EXPRESSION_LENGTH) return fail(v, 'too_long', `${key} is ${value.length} characters long; an expression has at most ${MAX_EXPRESSION_LENGTH}.`);
        const m = measureExpression(value);
        if (m.terms > MAX_EXPRESSION_TERMS) return fail(v, 'too_complex', `${key} has ${m.terms} terms; an expression has at most ${MAX_EXPRESSION_TERMS}.`);
        if (m.nesting > MAX_EXPRESSION_NESTING) return fail(v, 'too_complex', `${key} nests ${m.nesting} brackets deep; an expression nests at most ${MAX_EXPRESSION_NESTING}.`);
        quizTerms += m.terms;
        if (quizTerms > MAX_QUIZ_EXPRESSION_TERMS) return fail(v, 'too_complex', `the quiz's expressions have more than ${MAX_QUIZ_EXPRESSION_TERMS} terms together (reached at ${key}).`);
      }
    } else if (typeof value === 'number') {
      bytes += String(value).length;
    } else if (typeof value === 'boolean' || value === null) {
      bytes += 5;
    } else if (Array.isArray(value) || isObject(value)) {
      bytes += 2;
      if (v.depth > MAX_QUIZ_DEPTH) return fail(v, 'too_complex', `${v.key.slice(0, 100) || 'the quiz'} nests deeper than ${MAX_QUIZ_DEPTH} levels of objects and arrays.`);
      if (Array.isArray(value)) {
        if (v.depth === 2 && v.key === 'elements' && value.length > MAX_ELEMENTS) return fail(v, 'too_complex', `A quiz holds at most ${MAX_ELEMENTS} elements; this one has ${value.length}.`);
        if (v.depth === 4 && v.key === 'choices' && value.length > MAX_CHOICES) return fail(v, 'too_complex', `choices has ${value.length} entries; a question has at most ${MAX_CHOICES}.`);
        if (value.length > MAX_QUIZ_BYTES) return fail(v, 'too_long', `the quiz JSON is longer than ${MAX_QUIZ_BYTES} bytes.`);
        for (let i = value.length - 1; i >= 0; i--) {
          const element = v.depth === 2 && v.key === 'elements' ? { index: i, label: isObject(value[i]) && typeof value[i].name === 'string' ? ` (${String(value[i].name).slice(0, 60)})` : '' } : v.element;
          stack.push({ value: value[i], key: v.key, at: i, parent: v, depth: v.depth + 1, element });
        }
      } else {
        const keys = Object.keys(value);
        if (keys.length > MAX_QUIZ_BYTES) return fail(v, 'too_long', `the quiz JSON is longer than ${MAX_QUIZ_BYTES} bytes.`);
        for (let i = keys.length - 1; i >= 0; i--) stack.push({ value: value[keys[i]], key: keys[i], at: keys[i], parent: v, depth: v.depth + 1, element: v.element });
      }
    }
    if (bytes > MAX_QUIZ_BYTES) return [{ field, code: 'too_long', message: `The quiz JSON is longer than ${MAX_QUIZ_BYTES} bytes (${MAX_QUIZ_BYTES / 1024} KiB).` }];
  }
  return [];
}
