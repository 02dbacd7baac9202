// The HTML a quiz carries (an `html` element's `html`, the survey's `completedHtml` and its
// kin), sanitized as rendered wiki HTML is (markup/sanitize.ts): on import and revision,
// and by migration 2026_12_04_1200_quiz_html_sanitized for the quizzes stored before.
import { sanitizeHtml } from '../../markup/sanitize.js';

/** A property holding HTML in SurveyJS JSON. */
const isHtmlKey = (key: string) => key === 'html' || key.endsWith('Html');
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A value under an HTML key: a string, or localized strings ({"default": ..., "de": ...}). */
function sanitizeValue(v: unknown): unknown {
  if (typeof v === 'string') return sanitizeHtml(v);
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, s]) => [k, typeof s === 'string' ? sanitizeHtml(s) : s]));
  return v;
}

/**
 * The quiz JSON with every HTML it holds sanitized (a copy: the input is not changed). The
 * walk is bounded by the quiz limits' depth (quizzes.limits.ts) and goes no deeper.
 */
export function sanitizeQuizHtml<T>(json: T, depth = 0): T {
  if (depth > 12) return json;
  if (Array.isArray(json)) return json.map((v) => sanitizeQuizHtml(v, depth + 1)) as T;
  if (!isObject(json)) return json;
  return Object.fromEntries(Object.entries(json).map(([k, v]) => [k, isHtmlKey(k) ? sanitizeValue(v) : sanitizeQuizHtml(v, depth + 1)])) as T;
}
