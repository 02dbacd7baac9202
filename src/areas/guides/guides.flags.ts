// Guide flags: markers shown on a guide. Editors set and clear the user flags; only
// Moderators and Admins star a guide (GUIDE_STARRED: the featured list). Flag ids come
// from request paths, so the set is a Map: `constructor` or `__proto__` is no flag.
import type { Config } from '../../config.js';

export interface FlagDefinition {
  title: string;
  text: string;
  /** Who may set it: editors of the guide, or Moderators (and Admins) only. */
  setBy: 'editor' | 'moderator';
  /** Colour of its badge image. */
  color: string;
}

export const GUIDE_FLAGS: ReadonlyMap<string, FlagDefinition> = new Map([
  ['GUIDE_IN_PROGRESS', { title: 'In progress', text: 'This guide is being written and may be incomplete.', setBy: 'editor', color: '#1f6feb' }],
  ['DANGER', { title: 'Danger', text: 'This procedure involves a risk of injury. Follow every safety step.', setBy: 'editor', color: '#f18f00' }],
  ['DEATH', { title: 'Risk of death', text: 'Mistakes in this procedure can kill. Only trained people may perform it.', setBy: 'editor', color: '#d62d20' }],
  ['GUIDE_DELETE', { title: 'Proposed for deletion', text: 'Someone proposed deleting this guide.', setBy: 'editor', color: '#6e7781' }],
  ['GUIDE_STARRED', { title: 'Featured', text: 'A featured guide, chosen by the moderators.', setBy: 'moderator', color: '#f7d000' }],
]);

export const ALL_FLAGS = [...GUIDE_FLAGS.keys()];
export const USER_FLAGS = ALL_FLAGS.filter((f) => GUIDE_FLAGS.get(f)!.setBy === 'editor');

export const flagImageUrl = (config: Config, flagid: string) => `${config.publicUrl}/static/flags/${flagid}.svg`;

export function flagRecord(config: Config, flagid: string) {
  const f = GUIDE_FLAGS.get(flagid)!;
  return { flagid, image: flagImageUrl(config, flagid), title: f.title, text: f.text };
}

/** The badge image of a flag: a small SVG, served at flagImageUrl. */
export function flagSvg(flagid: string): string | null {
  const f = GUIDE_FLAGS.get(flagid);
  if (!f) return null;
  const letter = f.title[0];
  return `<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32" viewBox="0 0 32 32"><circle cx="16" cy="16" r="15" fill="${f.color}"/>` +
    `<text x="16" y="22" font-family="sans-serif" font-size="16" font-weight="bold" text-anchor="middle" fill="#fff">${letter}</text></svg>`;
}
