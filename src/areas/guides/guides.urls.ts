// Where a guide lives on the site: defined in areas/shared/guide-urls.ts (the markup
// renderer links guides too), re-exported for the guides area and those above it.
export { guideSlug, guideUrl } from '../shared/guide-urls.js';
