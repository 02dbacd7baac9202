import type { DemoContext } from '../area.js';

/** Demo terms of the plant, in English, with their translations into the languages below. */
const TERMS: Array<{ term: string; notes: string; translations: Record<string, string> }> = [
  { term: 'drive belt', notes: 'The conveyor\'s toothed belt, not the fan belt.', translations: { de: 'Antriebsriemen', fr: 'courroie d\'entraînement', es: 'correa de transmisión', it: 'cinghia di trasmissione', nl: 'aandrijfriem' } },
  { term: 'conveyor', notes: '', translations: { de: 'Förderband', fr: 'convoyeur', es: 'transportador', it: 'nastro trasportatore', nl: 'transportband' } },
  { term: 'lockout/tagout', notes: 'Keep the English term on signs; translate in running text.', translations: { de: 'Lockout/Tagout', fr: 'consignation', es: 'bloqueo y etiquetado', it: 'lockout/tagout', nl: 'lockout/tagout' } },
  { term: 'torque wrench', notes: '', translations: { de: 'Drehmomentschlüssel', fr: 'clé dynamométrique', es: 'llave dinamométrica', it: 'chiave dinamometrica', nl: 'momentsleutel' } },
  { term: 'pumps', notes: 'The CATEGORY title.', translations: { de: 'Pumpen', fr: 'pompes', es: 'bombas', it: 'pompe', nl: 'pompen' } },
];

/** A few glossary entries from the site's default language (English) into its other languages; none on single-language sites. */
export async function seedGlossaryDemo(ctx: DemoContext) {
  const { db, config, clock, users } = ctx;
  const [source, ...targets] = config.languages;
  const known = targets.filter((l) => TERMS[0].translations[l]);
  if (source !== 'en' || known.length === 0) return;
  const now = clock.now();
  for (const t of TERMS) {
    const { entryid } = await db.insertInto('translation_glossary').values({
      source_langid: source, term: t.term, term_lower: t.term.toLowerCase(), notes: t.notes, created_date: now, modified_date: now, userid_modified: users.author ?? null,
    }).returning('entryid').executeTakeFirstOrThrow();
    await db.insertInto('translation_glossary_terms').values(known.map((langid) => ({ entryid, langid, term: t.translations[langid] }))).execute();
  }
  ctx.log(`translation glossary: ${TERMS.length} terms into ${known.join(', ')}`);
}
