// Quiz JSON (SurveyJS) validated element by element, and answers scored with survey-core,
// SurveyJS's own framework-independent model (version pinned in package.json), so that a
// score equals what a SurveyJS front end computes. One correction: survey-core 3.1.1 counts
// a `ranking` question with its checkbox parent's order-blind comparison in
// getCorrectAnswerCount() while its own isAnswerCorrect() compares in order; a ranking is
// an order, so the in-order answer is the one counted (through onIsAnswerCorrect), compared
// with the answer as submitted: survey-core fills a ranking given a non-array with its
// choices' order, which would make any malformed answer "correct".
import type { Model, Question } from 'survey-core';
import { lazyRequire } from '../../lazy-require.js';
import { unprocessable, type FieldError } from '../../http/errors.js';
import { checkQuizLimits } from './quizzes.limits.js';

/** survey-core, loaded with the first quiz checked or scored (lazy-require.ts). */
const surveyCore = lazyRequire<typeof import('survey-core')>('survey-core');

/** Question types a quiz may hold; html and image are media (not counted in nonMediaQuestionsCount). */
export const QUESTION_TYPES = ['radiogroup', 'dropdown', 'checkbox', 'tagbox', 'text', 'comment', 'rating', 'boolean', 'ranking', 'html', 'image'] as const;
const MEDIA_TYPES = new Set(['html', 'image']);
const SINGLE_CHOICE = new Set(['radiogroup', 'dropdown']);
const MULTI_CHOICE = new Set(['checkbox', 'tagbox', 'ranking']);

export interface QuizElement {
  name: string;
  type: string;
  title?: string;
  choices?: unknown[];
  correctAnswer?: unknown;
  [key: string]: unknown;
}
export interface QuizJson {
  title?: string;
  elements: QuizElement[];
  [key: string]: unknown;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const choiceValue = (c: unknown): unknown => (isObject(c) ? c.value : c);
const present = (v: unknown) => v !== undefined && v !== null && v !== '' && !(Array.isArray(v) && v.length === 0);

/**
 * Errors of a quiz JSON, each naming its element (`quiz_json.elements[i]...`); empty when it
 * is valid. The limits (quizzes.limits.ts) come first: nothing reaches survey-core past them.
 */
export function validateQuizJson(json: unknown, field = 'quiz_json'): FieldError[] {
  if (!isObject(json)) return [{ field, code: 'invalid_value', message: 'quiz_json must be an object with an elements array.' }];
  const beyond = checkQuizLimits(json, field);
  if (beyond.length) return beyond;
  const errors: FieldError[] = [];
  if (json.title !== undefined && typeof json.title !== 'string') errors.push({ field: `${field}.title`, code: 'invalid_value', message: 'title must be a string.' });
  if (json.pages !== undefined) errors.push({ field: `${field}.pages`, code: 'invalid_value', message: 'A quiz is one page: put its questions in elements, not pages.' });
  const elements = json.elements;
  if (!Array.isArray(elements) || elements.length === 0) {
    errors.push({ field: `${field}.elements`, code: 'missing_field', message: 'elements must be a non-empty array of questions.' });
    return errors;
  }
  const names = new Set<string>();
  elements.forEach((el, i) => {
    const at = `${field}.elements[${i}]`;
    const err = (suffix: string, message: string, code = 'invalid_value') => errors.push({ field: `${at}${suffix}`, code, message: `Element ${i}: ${message}`, index: i });
    if (!isObject(el)) return err('', 'must be an object.');
    if (typeof el.name !== 'string' || !el.name.trim()) return err('.name', 'needs a name.', 'missing_field');
    if (el.name.length > 200) return err('.name', 'name is longer than 200 characters.');
    if (names.has(el.name)) return err('.name', `the name "${el.name}" is used by an earlier element.`);
    names.add(el.name);
    if (typeof el.type !== 'string' || !(QUESTION_TYPES as readonly string[]).includes(el.type)) return err('.type', `type must be one of ${QUESTION_TYPES.join(', ')}.`);
    if (el.title !== undefined && typeof el.title !== 'string') return err('.title', 'title must be a string.');
    const type = el.type;
    const choices = el.choices;
    if (SINGLE_CHOICE.has(type) || MULTI_CHOICE.has(type)) {
      if (!Array.isArray(choices) || choices.length === 0) return err('.choices', `a ${type} question needs choices.`, 'missing_field');
      const bad = choices.findIndex((c) => !(typeof c === 'string' || typeof c === 'number' || (isObject(c) && (typeof c.value === 'string' || typeof c.value === 'number'))));
      if (bad >= 0) return err(`.choices[${bad}]`, 'a choice is a string, a number or {value, text}.');
    } else if (choices !== undefined) return err('.choices', `a ${type} question has no choices.`);
    const answer = el.correctAnswer;
    if (!present(answer)) {
      if (answer !== undefined && answer !== null && answer !== '' && !(Array.isArray(answer) && answer.length === 0)) return err('.correctAnswer', 'correctAnswer is empty.');
      return;
    }
    if (MEDIA_TYPES.has(type)) return err('.correctAnswer', `a ${type} element is not a question and has no correctAnswer.`);
    const values = new Set((choices as unknown[] | undefined)?.map((c) => String(choiceValue(c))) ?? []);
    if (SINGLE_CHOICE.has(type)) {
      if (!(typeof answer === 'string' || typeof answer === 'number') || !values.has(String(answer))) return err('.correctAnswer', 'correctAnswer must be one of the choices\' values.');
    } else if (MULTI_CHOICE.has(type)) {
      if (!Array.isArray(answer) || answer.some((a) => !(typeof a === 'string' || typeof a === 'number') || !values.has(String(a)))) return err('.correctAnswer', 'correctAnswer must be an array of the choices\' values.');
      if (new Set(answer.map(String)).size !== answer.length) return err('.correctAnswer', 'correctAnswer names a choice twice.');
      if (type === 'ranking' && answer.length !== values.size) return err('.correctAnswer', 'a ranking\'s correctAnswer orders every choice.');
    } else if (type === 'boolean') {
      if (typeof answer !== 'boolean') return err('.correctAnswer', 'a boolean question\'s correctAnswer is true or false.');
    } else if (type === 'rating') {
      const min = typeof el.rateMin === 'number' ? el.rateMin : 1;
      const max = typeof el.rateMax === 'number' ? el.rateMax : 5;
      if (typeof answer !== 'number' || !Number.isFinite(answer) || answer < min || answer > max) return err('.correctAnswer', `a rating question's correctAnswer is a number from ${min} to ${max}.`);
    } else if (!(typeof answer === 'string' || typeof answer === 'number')) return err('.correctAnswer', `a ${type} question's correctAnswer is a string or a number.`);
  });
  if (errors.length) return errors;
  // Conditions (visibleIf, enableIf, ...) are SurveyJS expressions: text that parses.
  elements.forEach((el: Record<string, unknown>, i) => {
    for (const [key, value] of Object.entries(el)) {
      if (!key.endsWith('If')) continue;
      if (typeof value !== 'string' || !new (surveyCore().ConditionsParser)().parseExpression(value)) {
        errors.push({ field: `${field}.elements[${i}].${key}`, code: 'invalid_value', message: `Element ${i}: ${key} is not a valid SurveyJS expression.`, index: i });
      }
    }
  });
  if (errors.length) return errors;
  // What survey-core itself refuses (a property of the wrong type, an unknown one); a
  // property it cannot even load is found by loading each element alone.
  let model: Model;
  try {
    model = new (surveyCore().Model)(json);
  } catch {
    elements.forEach((el, i) => {
      try {
        new (surveyCore().Model)({ elements: [el] });
      } catch (e) {
        errors.push({ field: `${field}.elements[${i}]`, code: 'invalid_value', message: `Element ${i}: SurveyJS cannot load it (${e instanceof Error ? e.message : 'error'}).`, index: i });
      }
    });
    return errors.length ? errors : [{ field, code: 'invalid_value', message: 'SurveyJS cannot load this quiz.' }];
  }
  model.jsonErrors?.forEach((e) => {
    const obj = (e as unknown as { jsonObj?: unknown }).jsonObj;
    const i = elements.indexOf(obj);
    errors.push({ field: i >= 0 ? `${field}.elements[${i}]` : field, code: 'invalid_value', message: `${i >= 0 ? `Element ${i}: ` : ''}${e.message}`, ...(i >= 0 ? { index: i } : {}) });
  });
  return errors;
}

/** Questions that are not media (html, image). */
export const nonMediaCount = (json: QuizJson) => json.elements.filter((e) => !MEDIA_TYPES.has(e.type)).length;

/** The quiz JSON without the answer key, for learners. */
export function withoutAnswers(json: QuizJson): QuizJson {
  return { ...json, elements: json.elements.map(({ correctAnswer: _omit, ...rest }) => rest as QuizElement) };
}

export interface QuizResult {
  correct: number;
  questions: number;
  /** Percentage, 0 to 100, two decimals; 100 for a quiz that has no scored question. */
  score: number;
  /** Per scored question (visible with a correctAnswer): its name and whether it was answered correctly. */
  results: Array<{ name: string; correct: boolean }>;
}

/** In-order equality of a submitted ranking (the raw answer, not the value survey-core may have normalized) with its correct answer. */
function rankingCorrect(given: unknown, correct: unknown): boolean {
  return Array.isArray(given) && Array.isArray(correct) && given.length === correct.length && given.every((v, i) => String(v) === String(correct[i]));
}

/** A survey-core model of a quiz, with the ranking correction; `answers` is read by that correction when scoring. */
interface ScoringModel {
  model: Model;
  answers: Record<string, unknown>;
}

function scoringModel(json: QuizJson): ScoringModel {
  const kept: ScoringModel = { model: new (surveyCore().Model)(json), answers: {} };
  kept.model.onIsAnswerCorrect.add((_sender, options) => {
    const q = (options as unknown as { question: Question }).question;
    if (q.getType() === 'ranking') options.result = rankingCorrect(kept.answers[q.name], q.correctAnswer);
  });
  return kept;
}

/**
 * Scores answers with a model, synchronously (no other scoring sees it meanwhile); setting
 * `data` replaces every value, so a model scores the same however often it is reused.
 */
function scoreWith(kept: ScoringModel, data: Record<string, unknown>): QuizResult {
  const { model } = kept;
  kept.answers = data;
  try {
    model.data = data;
    const correct = model.getCorrectAnswerCount();
    const questions = model.getQuizQuestionCount();
    const results = (model.getQuizQuestions() as unknown as Question[]).map((q) => ({ name: q.name, correct: q.correctAnswerCount === q.quizQuestionCount && q.quizQuestionCount > 0 }));
    const score = questions === 0 ? 100 : Math.round((correct / questions) * 10_000) / 100;
    return { correct, questions, score, results };
  } finally {
    kept.answers = {};
  }
}

/** Scores answers (SurveyJS data) against the quiz's correct answers, with a model built for this once. */
export function scoreQuiz(json: QuizJson, data: Record<string, unknown>): QuizResult {
  return scoreWith(scoringModel(json), data);
}

/** Models kept per quiz revision, each with the JSON text it was built from. */
interface KeptModel extends ScoringModel {
  text: string;
}

/**
 * The survey models of the quiz revisions scored lately, kept per process: a model is built
 * once per revision (revisions never change; the text is compared all the same, so a row
 * rewritten by a migration or another database's row of the same id is never scored with a
 * stale model). Bounded by count and by the JSON bytes the models were built from.
 */
export class QuizModelCache {
  private map = new Map<number, KeptModel>();
  private bytes = 0;
  builds = 0;

  constructor(readonly maxModels = 200, readonly maxBytes = 32 * 1024 * 1024) {}

  get size() {
    return this.map.size;
  }

  /** Scores answers on the revision `quiz_revisionid` whose JSON text is `text`. */
  score(quiz_revisionid: number, text: string, data: Record<string, unknown>): QuizResult {
    return scoreWith(this.model(quiz_revisionid, text), data);
  }

  private model(id: number, text: string): KeptModel {
    const found = this.map.get(id);
    if (found && found.text === text) {
      this.map.delete(id);
      this.map.set(id, found);
      return found;
    }
    if (found) this.drop(id, found);
    const json = JSON.parse(text) as QuizJson;
    // a quiz stored before the limits existed is not scored past them either
    const beyond = checkQuizLimits(json);
    if (beyond.length) throw unprocessable(beyond, `Quiz revision ${id} is beyond the quiz limits and cannot be scored: ${beyond[0].message} Import a smaller revision.`);
    this.builds++;
    const built = Object.assign(scoringModel(json), { text });
    if (text.length <= this.maxBytes) {
      this.map.set(id, built);
      this.bytes += text.length;
      for (const [oldId, old] of this.map) {
        if (this.map.size <= this.maxModels && this.bytes <= this.maxBytes) break;
        this.drop(oldId, old);
      }
    }
    return built;
  }

  private drop(id: number, kept: KeptModel) {
    this.map.delete(id);
    this.bytes -= kept.text.length;
    kept.model.dispose();
  }
}

/** The process's quiz models (scoring at submit and on reading a submission). */
export const quizModels = new QuizModelCache();
