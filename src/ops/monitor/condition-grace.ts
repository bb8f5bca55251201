// Pure: conditions that must persist for a grace period before they open an incident (an app that
// is restarting for a moment is not yet an alert). No clock, no disk: `now` and first-seen times in.
import type { Condition } from './incident-transitions.js';

/** A condition with an optional grace: it opens an incident only once seen for `graceMs`. */
export type GracedCondition = Condition & { graceMs?: number };

/**
 * Split active conditions into confirmed ones (no grace, or first seen at least `graceMs` ago) and
 * the new first-seen table: active graced keys keep (or get) their time; keys no longer active are
 * dropped only when `inScope` says this pass looked at them.
 */
export function applyConditionGrace(
  active: readonly GracedCondition[],
  since: ReadonlyMap<string, number>,
  now: number,
  inScope: (key: string) => boolean,
): { confirmed: Condition[]; since: Map<string, number> } {
  const next = new Map<string, number>();
  for (const [key, at] of since) if (!inScope(key)) next.set(key, at);
  const confirmed: Condition[] = [];
  for (const c of active) {
    const { graceMs, ...condition } = c;
    if (graceMs === undefined || graceMs <= 0) {
      confirmed.push(condition);
      continue;
    }
    const first = next.get(c.key) ?? since.get(c.key) ?? now;
    next.set(c.key, first);
    if (now - first >= graceMs) confirmed.push(condition);
  }
  return { confirmed, since: next };
}
