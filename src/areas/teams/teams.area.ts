import type { Area } from '../area.js';
import { teamsRoutes } from './teams.routes.js';
import { seedTeamsDemo } from './teams.demo.js';

export const teamsArea: Area = { name: 'teams', routes: teamsRoutes, seedDemo: seedTeamsDemo };
