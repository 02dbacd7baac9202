// Due dates of periodic review, computed from stored timestamps only (no clock in here):
// the schedule's recurrence and window, when the document was added and when it was
// last reviewed. The result is stored on the document row (review_documents.due_date,
// overdue_date) whenever one of these changes, so lists and the reminder job read it
// through an index.
export const DAY = 86_400;

export interface Recurrence {
  recurrence: string;
  month: number | null;
  day: number | null;
  interval_days: number | null;
  window_days: number;
}

/** Days in a month of a common year: February 29 is not a yearly review date. */
export const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The first midnight (UTC) of month/day strictly after `after`. */
function nextOccurrence(month: number, day: number, after: number): number {
  const year = new Date(after * 1000).getUTCFullYear();
  for (let y = year - 1; y <= year + 1; y++) {
    const t = Date.UTC(y, month - 1, day) / 1000;
    if (t > after) return t;
  }
  return Date.UTC(year + 2, month - 1, day) / 1000;
}

/**
 * When the document's next review comes due:
 *  - every N days: N days after the last review (or after it was added);
 *  - yearly on a date: the next occurrence of the date after it was added; after a
 *    review, the next occurrence that is more than the completion window after it (a
 *    review done within the window before a date counts for that date, one done late
 *    counts for the date it was late for).
 */
export function dueDate(s: Recurrence, addedDate: number, lastReviewed: number | null): number {
  if (s.recurrence === 'interval') return (lastReviewed ?? addedDate) + (s.interval_days ?? 1) * DAY;
  const after = lastReviewed === null ? addedDate : lastReviewed + s.window_days * DAY;
  return nextOccurrence(s.month ?? 1, s.day ?? 1, after);
}

export const overdueDate = (s: Recurrence, due: number) => due + s.window_days * DAY;

export type ReviewStatus = 'scheduled' | 'due' | 'overdue';

export function reviewStatus(d: { due_date: number; overdue_date: number }, now: number): ReviewStatus {
  if (now >= d.overdue_date) return 'overdue';
  if (now >= d.due_date) return 'due';
  return 'scheduled';
}

/** The stored columns of a document for its schedule and dates: due, overdue, and the reminders reset. */
export function dueColumns(s: Recurrence, addedDate: number, lastReviewed: number | null) {
  const due = dueDate(s, addedDate, lastReviewed);
  return { due_date: due, overdue_date: overdueDate(s, due), notice: 'none', next_notice_date: due };
}
