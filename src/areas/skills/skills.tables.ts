// Tables of the skills area (migration 2026_11_25_0210_skills).
import type { Generated } from 'kysely';

export interface SkillsWeightTable {
  /** top | user | management */
  group_name: string;
  component: string;
  value: number;
}

export interface SkillsSupervisorRatingTable {
  userid: number;
  /** guide | wiki */
  doctype: string;
  docid: number;
  /** 0 to 1. */
  rating: number;
  rated_by: number | null;
  /** 1: an Admin rated themself (shared/oversight.ts). */
  self_override: Generated<number>;
  date: number;
}

export interface SkillsTables {
  skills_weights: SkillsWeightTable;
  skills_supervisor_ratings: SkillsSupervisorRatingTable;
}
