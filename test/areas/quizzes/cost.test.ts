// What a quiz may cost (quizzes.limits.ts): every limit passed by one is a 422 `too_long` or
// `too_complex` naming where, refused before survey-core sees the quiz; the largest quiz
// within every limit imports, is scored and read back; the survey model is built once per
// revision and kept, and a kept model scores as a fresh one does.
import { describe, expect, it } from 'vitest';
import { appForFile } from '../../helpers/app.js';
import { makeAuthor, makeUser, type TestUser } from '../../helpers/factories.js';
import { makePublishedGuide } from '../../helpers/factories/guides.js';
import { QUIZ_JSON } from '../../helpers/factories/assessments.js';
import {
  MAX_CHOICES, MAX_ELEMENTS, MAX_EXPRESSION_LENGTH, MAX_EXPRESSION_NESTING, MAX_EXPRESSION_TERMS, MAX_QUIZ_BYTES, MAX_QUIZ_DEPTH, MAX_QUIZ_EXPRESSION_TERMS, measureExpression,
} from '../../../src/areas/quizzes/quizzes.limits.js';
import { QuizModelCache, quizModels, scoreQuiz, type QuizJson } from '../../../src/areas/quizzes/quizzes.scoring.js';

let author: TestUser;
let learner: TestUser;
const t = appForFile({}, async () => {
  [author, learner] = await Promise.all([makeAuthor(t), makeUser(t)]);
});

const importing = (quiz_json: unknown) => t.post('/quizzes/import', { token: author.token, body: { quiz_json, title: 'Cost' } });
/** A 422 with one error: its field, code and message. */
async function refused(quiz_json: unknown) {
  const res = await importing(quiz_json);
  expect(res.statusCode, res.body.slice(0, 500)).toBe(422);
  const errors = res.json().errors as Array<{ field: string; code: string; message: string }>;
  expect(errors).toHaveLength(1);
  return errors[0];
}

const radio = (i: number, extra: Record<string, unknown> = {}) => ({ name: `q${i}`, type: 'radiogroup', title: `Question ${i}`, choices: ['c0', 'c1', 'c2'], correctAnswer: 'c0', ...extra });
/** An expression of exactly `terms` terms (not 4), true when q0 is c0: a comparison is 3 terms, `or` 1, `notempty` 1, `true` 1. */
function expressionOf(terms: number): string {
  let text = `{q0} = 'c0'`;
  let rest = terms - 3;
  while (rest > 5) { text += ` or {q0} <> 'c9'`; rest -= 4; }
  const tail: Record<number, string> = { 0: '', 2: ' or true', 3: ' or {q0} notempty', 4: ` or {q0} <> 'c9'`, 5: ' or {q0} notempty or true' };
  return text + tail[rest];
}

describe('limits: each passed by one is a 422 naming where', () => {
  it('the expression measure counts variables, values, operators and function names, and brackets open at once', () => {
    expect(measureExpression(`{a} = 'x' and ({b} > 2 or contains({c}, "y)"))`)).toEqual({ terms: 11, nesting: 2 });
    expect(measureExpression('[[[1]]]')).toEqual({ terms: 1, nesting: 3 });
    expect(measureExpression(expressionOf(MAX_EXPRESSION_TERMS)).terms).toBe(MAX_EXPRESSION_TERMS);
  });

  it('size, elements, choices and nesting of the JSON', async () => {
    const big = { ...QUIZ_JSON, elements: [...QUIZ_JSON.elements, { name: 'long', type: 'html', html: 'x'.repeat(MAX_QUIZ_BYTES) }] };
    expect(await refused(big)).toMatchObject({ field: 'quiz_json', code: 'too_long' });
    const many = { elements: Array.from({ length: MAX_ELEMENTS + 1 }, (_, i) => radio(i)) };
    expect(await refused(many)).toMatchObject({ field: 'quiz_json.elements', code: 'too_complex' });
    const choices = { elements: [radio(0), radio(1, { choices: Array.from({ length: MAX_CHOICES + 1 }, (_, i) => `c${i}`) })] };
    const c = await refused(choices);
    expect(c).toMatchObject({ field: 'quiz_json.elements[1].choices', code: 'too_complex' });
    expect(c.message).toContain('Element 1 (q1)');
    let deep: Record<string, unknown> = { x: 1 };
    for (let d = 0; d < MAX_QUIZ_DEPTH; d++) deep = { deeper: deep };
    const nested = await refused({ elements: [radio(0), radio(1, { validators: [deep] })] });
    expect(nested).toMatchObject({ code: 'too_complex' });
    expect(nested.field).toMatch(/^quiz_json\.elements\[1\]\.validators\[0\]\.deeper/);
  });

  it('an expression\'s length, terms and nesting, and the terms of the whole quiz', async () => {
    const long = await refused({ elements: [radio(0), radio(1, { visibleIf: `{q0} = '${'c'.repeat(MAX_EXPRESSION_LENGTH)}'` })] });
    expect(long).toMatchObject({ field: 'quiz_json.elements[1].visibleIf', code: 'too_long' });
    expect(long.message).toContain('Element 1 (q1): visibleIf');
    expect(await refused({ elements: [radio(0), radio(1, { enableIf: expressionOf(MAX_EXPRESSION_TERMS + 1) })] }))
      .toMatchObject({ field: 'quiz_json.elements[1].enableIf', code: 'too_complex' });
    const nesting = '('.repeat(MAX_EXPRESSION_NESTING + 1) + `{q0} = 'c0'` + ')'.repeat(MAX_EXPRESSION_NESTING + 1);
    expect(await refused({ elements: [radio(0), radio(1, { visibleIf: nesting })] })).toMatchObject({ field: 'quiz_json.elements[1].visibleIf', code: 'too_complex' });
    const perQuiz = MAX_QUIZ_EXPRESSION_TERMS / MAX_EXPRESSION_TERMS;
    const total = await refused({ elements: [radio(0), ...Array.from({ length: perQuiz + 1 }, (_, i) => radio(i + 1, { visibleIf: expressionOf(MAX_EXPRESSION_TERMS) }))] });
    expect(total).toMatchObject({ field: `quiz_json.elements[${perQuiz + 1}].visibleIf`, code: 'too_complex' });
    // expressions outside elements count too: a survey trigger, a validator
    expect(await refused({ elements: [radio(0)], triggers: [{ type: 'complete', expression: expressionOf(MAX_EXPRESSION_TERMS + 1) }] }))
      .toMatchObject({ field: 'quiz_json.triggers[0].expression', code: 'too_complex' });
    expect(await refused({ elements: [radio(0, { validators: [{ type: 'expression', expression: 'x'.repeat(MAX_EXPRESSION_LENGTH + 1) }] })] }))
      .toMatchObject({ field: 'quiz_json.elements[0].validators[0].expression', code: 'too_long' });
  });

  it('the attack\'s shape: 128 KB and 440 KB of long conditions are refused', async () => {
    for (const kb of [128, 440]) {
      const elements = [radio(0)];
      for (let i = 1; JSON.stringify(elements).length < kb * 1024; i++) {
        elements.push(radio(i, { visibleIf: Array.from({ length: 400 }, (_, j) => `{q${j % i}} = 'c0'`).join(' or ') }));
      }
      const res = await importing({ elements });
      expect(res.statusCode).toBe(422);
      expect(['too_long', 'too_complex']).toContain(res.json().errors[0].code);
    }
  });
});

/** The largest quiz within every limit at once. */
function largestQuiz(): QuizJson {
  const elements: Array<Record<string, unknown>> = [radio(0, { choices: Array.from({ length: MAX_CHOICES }, (_, i) => `c${i}`) })];
  const withExpressions = MAX_QUIZ_EXPRESSION_TERMS / MAX_EXPRESSION_TERMS;
  for (let i = 1; i < MAX_ELEMENTS - 1; i++) {
    const extra: Record<string, unknown> = {};
    if (i <= withExpressions) {
      const text = expressionOf(MAX_EXPRESSION_TERMS - 2);
      extra.visibleIf = i === 1 ? '('.repeat(MAX_EXPRESSION_NESTING) + text + ')'.repeat(MAX_EXPRESSION_NESTING) + ' or true' : `${text} or true`;
    }
    elements.push(radio(i, extra));
  }
  const quiz = { title: 'Largest', elements: [...elements, { name: 'pad', type: 'html', html: '' }] } as unknown as QuizJson;
  const pad = MAX_QUIZ_BYTES - JSON.stringify(quiz).length - 2048;
  (quiz.elements[quiz.elements.length - 1] as Record<string, unknown>).html = `<p>${'w'.repeat(pad - 7)}</p>`;
  return quiz;
}

describe('the largest quiz within the limits', () => {
  it('imports, is scored on submit and read back, with its model built once', async () => {
    const quiz = largestQuiz();
    expect(quiz.elements).toHaveLength(MAX_ELEMENTS);
    expect(JSON.stringify(quiz).length).toBeGreaterThan(MAX_QUIZ_BYTES - 4096);
    expect(Math.max(...quiz.elements.map((e) => (typeof e.visibleIf === 'string' ? e.visibleIf.length : 0)))).toBeLessThanOrEqual(MAX_EXPRESSION_LENGTH);
    const res = await importing(quiz);
    expect(res.statusCode, res.body.slice(0, 500)).toBe(201);
    const { quizid, quiz_revisionid } = res.json();
    const guide = await makePublishedGuide(t, author);
    expect((await t.post('/quizzes/attach/guide', { token: author.token, body: { quizid, guideid: guide.guideid } })).statusCode).toBe(200);

    const answers = Object.fromEntries(quiz.elements.filter((e) => e.type === 'radiogroup').map((e) => [e.name, 'c0']));
    const builds = quizModels.builds;
    const submit = async (data: Record<string, unknown>) => t.post('/quizzes/sessions/submit', { token: learner.token, body: { quizid, doctype: 'guide', docid: guide.guideid, response_json: JSON.stringify(data) } });
    const passed = await submit(answers);
    expect(passed.statusCode, passed.body.slice(0, 500)).toBe(200);
    expect(passed.json().session).toMatchObject({ quiz_revisionid, score: 100, passed: 1 });
    expect(passed.json().results).toHaveLength(MAX_ELEMENTS - 1);
    const failed = await submit({ ...answers, q0: 'c1', q1: 'c1' });
    expect(failed.json().session.score).toBeCloseTo(((MAX_ELEMENTS - 3) / (MAX_ELEMENTS - 1)) * 100, 1);
    const read = await t.get(`/quizzes/submissions/${passed.json().session.quiz_sessionid}`, { token: learner.token });
    expect(read.json().results.every((r: { correct: boolean }) => r.correct)).toBe(true);
    expect(quizModels.builds - builds).toBe(1);
  });
});

describe('a quiz stored before the limits', () => {
  it('is not scored past them: submitting answers 422 naming the element, nothing recorded', async () => {
    const res = await importing(QUIZ_JSON);
    const { quizid, quiz_revisionid } = res.json();
    const guide = await makePublishedGuide(t, author);
    expect((await t.post('/quizzes/attach/guide', { token: author.token, body: { quizid, guideid: guide.guideid } })).statusCode).toBe(200);
    const stored = { elements: [radio(0), ...Array.from({ length: 40 }, (_, i) => radio(i + 1, { visibleIf: Array.from({ length: 200 }, (_x, j) => `{q${j % (i + 1)}} = 'c0'`).join(' or ') }))] };
    await t.db.updateTable('quiz_revisions').set({ quiz_json: JSON.stringify(stored) }).where('quiz_revisionid', '=', quiz_revisionid).execute();
    const submit = await t.post('/quizzes/sessions/submit', { token: learner.token, body: { quizid, doctype: 'guide', docid: guide.guideid, response_json: JSON.stringify({ q0: 'c0' }) } });
    expect(submit.statusCode, submit.body.slice(0, 300)).toBe(422);
    expect(submit.json().errors[0]).toMatchObject({ code: 'too_long', field: 'quiz_json.elements[1].visibleIf' });
    const sessions = await t.db.selectFrom('quiz_sessions').select('end_date').where('quizid', '=', quizid).execute();
    expect(sessions.every((s) => s.end_date === null)).toBe(true);
  });
});

describe('the model cache', () => {
  it('a kept model scores as a fresh one, whatever it scored before; bounded by count and bytes', () => {
    const json = { elements: [...QUIZ_JSON.elements, { name: 'r', type: 'ranking', choices: ['a', 'b', 'c'], correctAnswer: ['c', 'a', 'b'] }, radio(9, { visibleIf: `{q1} = 'red'` })] } as unknown as QuizJson;
    const text = JSON.stringify(json);
    const cache = new QuizModelCache(2, text.length * 2 + 10);
    const answers = [
      { q1: 'red', q2: ['isolate', 'verify'], q3: true, q4: 'danger', r: ['c', 'a', 'b'], q9: 'c0' },
      { q1: 'green', r: 'x', q9: 'c0' },
      {},
      { q1: 'red', q2: ['isolate'], r: ['a', 'b', 'c'], q9: 'c1' },
    ];
    for (const data of [...answers, ...answers.reverse()]) expect(cache.score(1, text, data)).toEqual(scoreQuiz(json, data));
    expect(cache.builds).toBe(1);
    // another text under the same id is built again, never scored with the old model
    const changed = JSON.stringify({ ...json, elements: json.elements.map((e) => (e.name === 'q1' ? { ...e, correctAnswer: 'green' } : e)) });
    expect(cache.score(1, changed, { q1: 'green' }).results.find((r) => r.name === 'q1')?.correct).toBe(true);
    expect(cache.builds).toBe(2);
    cache.score(2, text, {});
    cache.score(3, text, {});
    expect(cache.size).toBe(2);
  });
});
