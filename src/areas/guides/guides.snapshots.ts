// What a revision keeps. Every change of a guide writes a guide_revisions row with a
// GuideSnapshot (the guide's fields and the list of its steps, each with the step
// revision it was at); every change of a step writes a guide_step_revisions row with a
// StepSnapshot. Together they give any past revision back in full.

import type { GuideFieldColumn, GuideTable } from './guides.tables.js';

export interface ItemInputStored { title: string; quantity: number; notes: string }

/** The field columns a snapshot keeps as JSON values rather than as the row stores them. */
type ReadColumn = 'public' | 'parts' | 'tools' | 'documents';

/** The guide's owner and field columns (guides.tables.ts), `public` as a boolean and the JSON columns parsed. */
export type GuideSnapshotFields = Pick<GuideTable, 'userid' | Exclude<GuideFieldColumn, ReadColumn>> & {
  public: boolean;
  parts: ItemInputStored[];
  tools: ItemInputStored[];
  documents: number[];
};

export interface GuideSnapshot {
  fields: GuideSnapshotFields;
  deleted: boolean;
  prerequisites: number[];
  tags: string[];
  steps: Array<{ stepid: number; revisionid: number }>;
}

export interface LineSnapshot { lineid: number; text: string; bullet: string; bullet_styleid: number | null; level: number }

export type StepMediaSource = { type: 'image'; imageids: number[] } | { type: 'video'; videoid: number };

export interface StepSnapshot {
  title: string;
  lines: LineSnapshot[];
  media: StepMediaSource | null;
  /** The field_revisionids of its form fields, in order (absent in snapshots older than form fields). */
  fields?: number[];
}
