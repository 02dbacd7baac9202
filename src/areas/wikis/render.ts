// Wiki syntax to HTML for the wikis and comments areas: the shared batch renderer
// (embeds and internal links resolved with one query per kind for the whole batch).
export { renderWikiTexts as renderTexts } from '../content/render.js';
