import type { Area } from '../area.js';
import { glossaryRoutes } from './glossary.routes.js';
import { seedGlossaryDemo } from './glossary.demo.js';

export const glossaryArea: Area = {
  name: 'translation_glossary',
  routes: glossaryRoutes,
  seedDemo: seedGlossaryDemo,
};
