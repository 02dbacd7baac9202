// Scoring of every question type with survey-core (what a SurveyJS front end computes), and
// the element-by-element validation of an import.
import { describe, expect, it } from 'vitest';
import { scoreQuiz, validateQuizJson, withoutAnswers, nonMediaCount, type QuizJson } from '../../../src/areas/quizzes/quizzes.scoring.js';

const one = (el: Record<string, unknown>, answer: unknown) => scoreQuiz({ elements: [{ name: 'q', ...el } as never] }, answer === undefined ? {} : { q: answer });

describe('scoring, per question type', () => {
  it('radiogroup and dropdown compare one value', () => {
    for (const type of ['radiogroup', 'dropdown']) {
      expect(one({ type, choices: ['a', 'b'], correctAnswer: 'a' }, 'a').score).toBe(100);
      expect(one({ type, choices: ['a', 'b'], correctAnswer: 'a' }, 'b').score).toBe(0);
    }
  });
  it('checkbox and tagbox compare arrays ignoring order', () => {
    for (const type of ['checkbox', 'tagbox']) {
      expect(one({ type, choices: ['a', 'b', 'c'], correctAnswer: ['a', 'c'] }, ['c', 'a']).score).toBe(100);
      expect(one({ type, choices: ['a', 'b', 'c'], correctAnswer: ['a', 'c'] }, ['a']).score).toBe(0);
      expect(one({ type, choices: ['a', 'b', 'c'], correctAnswer: ['a', 'c'] }, ['a', 'b', 'c']).score).toBe(0);
    }
  });
  it('ranking compares arrays in order', () => {
    expect(one({ type: 'ranking', choices: ['a', 'b', 'c'], correctAnswer: ['a', 'b', 'c'] }, ['a', 'b', 'c']).score).toBe(100);
    expect(one({ type: 'ranking', choices: ['a', 'b', 'c'], correctAnswer: ['a', 'b', 'c'] }, ['c', 'b', 'a']).score).toBe(0);
    // survey-core fills a malformed ranking with the choices' order; what was sent is what counts
    for (const bad of [5, 'a', [null], undefined]) expect(one({ type: 'ranking', choices: ['a', 'b', 'c'], correctAnswer: ['a', 'b', 'c'] }, bad).score).toBe(0);
  });
  it('boolean compares true or false', () => {
    expect(one({ type: 'boolean', correctAnswer: false }, false).score).toBe(100);
    expect(one({ type: 'boolean', correctAnswer: false }, true).score).toBe(0);
  });
  it('text and comment compare strings trimmed and case-insensitive; rating compares one value', () => {
    expect(one({ type: 'text', correctAnswer: 'Torque' }, '  torque ').score).toBe(100);
    expect(one({ type: 'comment', correctAnswer: 'Torque' }, 'TORQUE').score).toBe(100);
    expect(one({ type: 'text', correctAnswer: 'Torque' }, 'torques').score).toBe(0);
    expect(one({ type: 'rating', correctAnswer: 4 }, 4).score).toBe(100);
    expect(one({ type: 'rating', correctAnswer: 4 }, 3).score).toBe(0);
  });
  it('an unanswered question is wrong; a question counts only when visible with a correctAnswer; the score is a percentage', () => {
    const quiz: QuizJson = {
      elements: [
        { name: 'a', type: 'radiogroup', choices: ['x', 'y'], correctAnswer: 'x' },
        { name: 'b', type: 'text', correctAnswer: 'z', visibleIf: '{a} = "y"' },
        { name: 'c', type: 'text' },
        { name: 'd', type: 'boolean', correctAnswer: true },
        { name: 'e', type: 'html', html: 'x' },
        { name: 'f', type: 'text', correctAnswer: 'f' },
      ],
    };
    // a right, b hidden (a is not "y"), c and e not scored, d wrong, f unanswered: 1 of 3
    const r = scoreQuiz(quiz, { a: 'x', d: false });
    expect(r).toEqual({ correct: 1, questions: 3, score: 33.33, results: [{ name: 'a', correct: true }, { name: 'd', correct: false }, { name: 'f', correct: false }] });
    expect(nonMediaCount(quiz)).toBe(5);
    expect(withoutAnswers(quiz).elements.every((e) => !('correctAnswer' in e))).toBe(true);
  });
});

describe('validation, element by element', () => {
  const fields = (json: unknown) => validateQuizJson(json).map((e) => e.field);
  it('names the element and the problem', () => {
    expect(fields({ elements: [{ name: 'a', type: 'radiogroup', choices: ['x'], correctAnswer: 'y' }] })).toEqual(['quiz_json.elements[0].correctAnswer']);
    expect(fields({ elements: [{ name: 'a', type: 'text' }, { name: 'a', type: 'text' }] })).toEqual(['quiz_json.elements[1].name']);
    expect(fields({ elements: [{ name: 'a', type: 'slider' }] })).toEqual(['quiz_json.elements[0].type']);
    expect(fields({ elements: [{ type: 'text' }] })).toEqual(['quiz_json.elements[0].name']);
    expect(fields({ elements: [{ name: 'a', type: 'checkbox', correctAnswer: ['x'] }] })).toEqual(['quiz_json.elements[0].choices']);
    expect(fields({ elements: [{ name: 'a', type: 'checkbox', choices: ['x', 'y'], correctAnswer: 'x' }] })).toEqual(['quiz_json.elements[0].correctAnswer']);
    expect(fields({ elements: [{ name: 'a', type: 'ranking', choices: ['x', 'y'], correctAnswer: ['x'] }] })).toEqual(['quiz_json.elements[0].correctAnswer']);
    expect(fields({ elements: [{ name: 'a', type: 'boolean', correctAnswer: 'yes' }] })).toEqual(['quiz_json.elements[0].correctAnswer']);
    expect(fields({ elements: [{ name: 'a', type: 'rating', correctAnswer: 9 }] })).toEqual(['quiz_json.elements[0].correctAnswer']);
    expect(fields({ elements: [{ name: 'a', type: 'html', correctAnswer: 'x' }] })).toEqual(['quiz_json.elements[0].correctAnswer']);
    expect(fields({ elements: [{ name: 'a', type: 'text', visibleIf: 3 }] })).toEqual(['quiz_json.elements[0].visibleIf']);
    expect(fields({ elements: [{ name: 'a', type: 'text', visibleIf: '{b} = = 2' }] })).toEqual(['quiz_json.elements[0].visibleIf']);
    expect(fields({ elements: [{ name: 'a', type: 'text' }, { name: 'b', type: 'text', inputType: 5 }] })).toEqual(['quiz_json.elements[1]']);
    expect(fields({ elements: [{ name: 'a', type: 'text', foo: 1 }] })).toEqual(['quiz_json.elements[0]']);
    expect(fields({ elements: [] })).toEqual(['quiz_json.elements']);
    expect(fields('quiz')).toEqual(['quiz_json']);
    expect(fields({ elements: [{ name: 'a', type: 'text', correctAnswer: 'x' }], title: 'ok' })).toEqual([]);
  });
});
