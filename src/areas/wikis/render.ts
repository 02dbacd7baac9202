// Wiki syntax to HTML for the wikis and comments areas, through the markup module.
// INTERIM: until the guides area's batch renderer (src/areas/content/render.ts,
// renderWikiTexts, which resolves embeds with one query per kind) is in main, texts are
// rendered without a resolver; the signature is the same so that callers do not change.
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Config } from '../../config.js';
import { renderWiki } from '../../markup/index.js';

export async function renderTexts(_db: Kysely<Database>, _config: Config, texts: string[]): Promise<string[]> {
  return texts.map((t) => renderWiki(t));
}
