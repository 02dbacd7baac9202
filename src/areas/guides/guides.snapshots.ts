// What a revision keeps. Every change of a guide writes a guide_revisions row with a
// GuideSnapshot (the guide's fields and the list of its steps, each with the step
// revision it was at); every change of a step writes a guide_step_revisions row with a
// StepSnapshot. Together they give any past revision back in full.

export interface ItemInputStored { title: string; quantity: number; notes: string }

export interface GuideSnapshot {
  fields: {
    userid: number;
    type: string;
    category: string;
    title: string;
    subject: string;
    summary: string;
    introduction: string;
    conclusion: string;
    difficulty: string;
    time_required: string;
    time_required_min: number;
    time_required_max: number;
    public: boolean;
    imageid: number | null;
    parts: ItemInputStored[];
    tools: ItemInputStored[];
    documents: number[];
  };
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
