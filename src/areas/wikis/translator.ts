// Machine translation of short texts (category display titles). The default translator
// applies the translation glossary's entries (src/areas/translation-glossary); a
// LibreTranslate server is used when LIBRETRANSLATE_URL is set, its answers cached in the
// database so that each distinct text is asked once.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import type { Clock } from '../../clock.js';
import { GlossaryTranslator } from '../translation-glossary/glossary.translator.js';
import { trimEndChar } from '../../strings.js';

export interface Translator {
  /** One translation per text, in order; a text that cannot be translated comes back as it is. */
  translate(texts: string[], from: string, to: string): Promise<string[]>;
}

export const identityTranslator: Translator = {
  async translate(texts) {
    return [...texts];
  },
};

export interface LibreTranslateOptions {
  url: string;
  apiKey?: string;
  timeoutMs?: number;
  fetch?: typeof fetch;
  onError?: (err: unknown) => void;
}

/** A LibreTranslate server (POST {url}/translate with q as an array). Falls back to the source text on any failure. */
export class LibreTranslateTranslator implements Translator {
  constructor(private readonly options: LibreTranslateOptions) {}

  async translate(texts: string[], from: string, to: string): Promise<string[]> {
    if (texts.length === 0 || from === to) return [...texts];
    const doFetch = this.options.fetch ?? fetch;
    try {
      const res = await doFetch(`${trimEndChar(this.options.url, '/')}/translate`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ q: texts, source: from, target: to, format: 'text', ...(this.options.apiKey ? { api_key: this.options.apiKey } : {}) }),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 5000),
      });
      if (!res.ok) throw new Error(`LibreTranslate answered ${res.status}`);
      const body = (await res.json()) as { translatedText?: unknown };
      const out = body.translatedText;
      if (!Array.isArray(out) || out.length !== texts.length) throw new Error('LibreTranslate answered an unexpected body');
      return out.map((t, i) => (typeof t === 'string' && t.trim() ? t : texts[i]));
    } catch (err) {
      this.options.onError?.(err);
      return [...texts];
    }
  }
}

/** Asks `inner` only for texts not translated before; stores what it answers. */
export class CachedTranslator implements Translator {
  constructor(private readonly db: Kysely<Database>, private readonly clock: Clock, private readonly inner: Translator) {}

  async translate(texts: string[], from: string, to: string): Promise<string[]> {
    if (texts.length === 0 || from === to) return [...texts];
    const distinct = [...new Set(texts)];
    const known = new Map<string, string>();
    for (let i = 0; i < distinct.length; i += 500) {
      const rows = await this.db.selectFrom('translation_cache').select(['source_text', 'translated_text'])
        .where('target_lang', '=', to).where('source_lang', '=', from).where('source_text', 'in', distinct.slice(i, i + 500)).execute();
      for (const r of rows) known.set(r.source_text, r.translated_text);
    }
    const missing = distinct.filter((t) => !known.has(t));
    if (missing.length) {
      const translated = await this.inner.translate(missing, from, to);
      const fresh = missing.map((t, i) => ({ source_lang: from, target_lang: to, source_text: t, translated_text: translated[i], created_date: this.clock.now() }))
        // A text that came back unchanged may be a failure: ask again next time.
        .filter((r) => r.translated_text !== r.source_text);
      for (const [i, t] of missing.entries()) known.set(t, translated[i]);
      if (fresh.length) {
        await this.db.insertInto('translation_cache').values(fresh)
          .onConflict((oc) => oc.columns(['target_lang', 'source_lang', 'source_text']).doNothing()).execute();
      }
    }
    return texts.map((t) => known.get(t) ?? t);
  }
}

/** The site's translator, from its settings. */
export function translatorFor(config: Config, db: Kysely<Database>, clock: Clock, onError?: (err: unknown) => void): Translator {
  if (!config.libreTranslateUrl) return new GlossaryTranslator(db, identityTranslator);
  return new CachedTranslator(db, clock, new LibreTranslateTranslator({ url: config.libreTranslateUrl, apiKey: config.libreTranslateApiKey || undefined, onError }));
}
