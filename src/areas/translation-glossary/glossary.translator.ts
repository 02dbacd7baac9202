// The glossary as a translator: every glossary term of the source language found in a
// text, as a whole word and whatever its case, is replaced by its translation into the
// target language. The site's default translator (no LIBRETRANSLATE_URL) is this one.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Translator } from '../wikis/translator.js';
import { glossaryPairs } from './glossary.queries.js';

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Replaces whole-word, case-insensitive occurrences of each term by its translation; longer terms first. */
export function applyGlossary(texts: string[], pairs: Array<{ term: string; translation: string }>): string[] {
  const usable = pairs.filter((p) => p.term.trim() !== '');
  if (usable.length === 0) return [...texts];
  const byLower = new Map(usable.map((p) => [p.term.toLowerCase(), p.translation]));
  const sorted = [...usable].sort((a, b) => [...b.term].length - [...a.term].length);
  // A word character is a letter, a digit or an underscore in any script.
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}\\p{M}_])(?:${sorted.map((p) => escapeRegExp(p.term)).join('|')})(?![\\p{L}\\p{N}\\p{M}_])`, 'giu');
  const find = (match: string) => byLower.get(match.toLowerCase())
    ?? sorted.find((p) => new RegExp(`^${escapeRegExp(p.term)}$`, 'iu').test(match))?.translation
    ?? match;
  return texts.map((text) => text.replace(pattern, find));
}

/** Applies the glossary, then hands the texts to `inner`. */
export class GlossaryTranslator implements Translator {
  constructor(private readonly db: Kysely<Database>, private readonly inner: Translator) {}

  async translate(texts: string[], from: string, to: string): Promise<string[]> {
    if (texts.length === 0 || from === to) return [...texts];
    const pairs = await glossaryPairs(this.db, from, to);
    return this.inner.translate(applyGlossary(texts, pairs), from, to);
  }
}
