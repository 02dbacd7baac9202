// Whether stages can still be signed: each needs `needed` distinct signers from its
// candidates; without repeated signatures nobody may sign two stages, which makes it a
// bipartite matching (stage slots to people), solved with augmenting paths. Processes
// have at most 10 stages of at most 100 signatures each, so this stays small.

export interface Demand {
  /** Who may still sign (already excluded: those who signed where it counts). */
  candidates: number[];
  /** Signatures still needed. */
  needed: number;
}

/** Each demand can be met on its own. */
export function eachSatisfiable(demands: Demand[]): boolean {
  return demands.every((d) => d.candidates.length >= d.needed);
}

/** Every demand can be met at once with nobody used twice (without repeated signatures). */
export function distinctlySatisfiable(demands: Demand[]): boolean {
  if (!eachSatisfiable(demands)) return false;
  const slots: number[][] = [];
  for (const d of demands) for (let i = 0; i < d.needed; i++) slots.push(d.candidates);
  const owner = new Map<number, number>(); // person -> slot
  const tryAssign = (slot: number, seen: Set<number>): boolean => {
    for (const person of slots[slot]) {
      if (seen.has(person)) continue;
      seen.add(person);
      const held = owner.get(person);
      if (held === undefined || tryAssign(held, seen)) {
        owner.set(person, slot);
        return true;
      }
    }
    return false;
  };
  for (let s = 0; s < slots.length; s++) if (!tryAssign(s, new Set())) return false;
  return true;
}

export const satisfiable = (demands: Demand[], allowRepeated: boolean) => (allowRepeated ? eachSatisfiable(demands) : distinctlySatisfiable(demands));
