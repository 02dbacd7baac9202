// Adversarial wiki texts for every construct, as functions of a size n: the shapes that
// make a parser that rescans super-linear (nested and unclosed blocks, runs of
// delimiters, brackets that almost make tags). Shared by the linearity tests and the fuzzer.
import { countSteps, renderWiki, docToWiki, wikiToDoc } from '../../src/markup/index.js';

export const ADVERSARIAL: Record<string, (n: number) => string> = {
  'quotes around unclosed code': (n) => '[quote]\n'.repeat(n) + '[code]\n'.repeat(n) + '[/quote]',
  'unclosed quotes': (n) => '[quote]\n'.repeat(n) + 'x',
  'nested closed quotes': (n) => '[quote|a]\n'.repeat(n) + 'x\n' + '[/quote]\n'.repeat(n),
  'more closes than opens': (n) => '[quote]\n' + '[/quote]'.repeat(n),
  'quote tags on one line': (n) => '[quote]'.repeat(n) + '[/quote]'.repeat(n),
  'unclosed code blocks': (n) => '[code]\n'.repeat(n),
  'code blocks with escaped closes': (n) => '[code]\n' + '\\[/code]'.repeat(n),
  'code blocks then quotes': (n) => ('[code]\n[quote]\n[/code]\n').repeat(n),
  'unclosed quote tags': (n) => '[quote|'.repeat(n),
  'deep lists': (n) => Array.from({ length: n }, (_, i) => '#*'.repeat(1 + (i % 6)) + ' item').join('\n'),
  'alternating list types': (n) => Array.from({ length: n }, (_, i) => (i % 2 ? '#' : '*').repeat(1 + (i % 10)) + ' x').join('\n'),
  'headings': (n) => '== h ==\n'.repeat(n) + '='.repeat(n),
  'apostrophe run': (n) => "'".repeat(n) + 'x',
  'unclosed marks': (n) => "'''a ''b ++c ~~d ,,e ^^f ".repeat(n),
  'alternating marks': (n) => "''a'''".repeat(n),
  'unclosed code spans': (n) => '``a'.repeat(n) + '\\`'.repeat(n),
  'nested brackets': (n) => '['.repeat(n) + ']'.repeat(n),
  'nested links': (n) => '[https://e.test|'.repeat(n) + ']'.repeat(n),
  'nested br tags': (n) => '[br|'.repeat(n) + ']'.repeat(n),
  'nested image tags': (n) => '[image|'.repeat(n) + '1]'.repeat(n),
  'guide tags with long args': (n) => '[guide|1|'.repeat(n) + ']'.repeat(n),
  'unclosed links': (n) => '[https://e.test|x'.repeat(n),
  'backslash runs': (n) => '\\'.repeat(n) + "'''x",
  'escaped tags': (n) => '\\[br]\\[quote]\\'.repeat(n),
  'hard breaks': (n) => 'a[br]\n'.repeat(n),
  'blank lines and spaces': (n) => ' \n\t\n'.repeat(n) + '[code]',
};

/** The steps of parsing, rendering and serializing a text (with a budget: fails fast). */
export function markupSteps(text: string, budget = 400 * Math.max(text.length, 100)): number {
  return countSteps(() => {
    const doc = wikiToDoc(text);
    renderWiki(text);
    docToWiki(doc);
  }, budget).steps;
}
