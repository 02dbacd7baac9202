// Where a guide lives on the site: `${publicUrl}/Guide/<slug>/<guideid>`, served as HTML
// by the guides area (guides.page.ts); a language other than the site's default is
// named in `?lang=`. Below every area (the markup renderer in areas/content links
// guides); re-exported by guides/guides.urls.ts.
import type { Config } from '../../config.js';
import { trimChar, trimEndChar } from '../../strings.js';

/** The title as a URL segment: letters and digits joined by hyphens. */
export function guideSlug(title: string): string {
  const words = title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, '-');
  const slug = trimEndChar(trimChar(words, '-').slice(0, 80), '-');
  return slug || 'Guide';
}

export function guideUrl(config: Config, guideid: number, title: string, langid?: string): string {
  const lang = langid && langid !== config.languages[0] ? `?lang=${encodeURIComponent(langid)}` : '';
  return `${config.publicUrl}/Guide/${encodeURIComponent(guideSlug(title))}/${guideid}${lang}`;
}
