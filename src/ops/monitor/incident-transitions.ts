// Pure decision of one monitor pass: which incidents open and which resolve. No clock, no disk.

/** A problem a source sees right now; `key` is stable per kind and subject (e.g. `deployment.failed:prj_1`). */
export interface Condition {
  key: string;
  kind: string;
  projectId: string | null;
  /** Safe, non-secret facts for the alert (ids, times, codes). */
  details: Record<string, unknown>;
}

/** An open incident as stored. */
export interface OpenIncident {
  id: string;
  key: string;
  projectId: string | null;
}

/** What to persist after a pass. */
export interface IncidentPlan {
  open: Condition[];
  resolve: OpenIncident[];
}

/**
 * Open an incident for every active condition without one; resolve every open incident whose
 * condition is gone — but only within the subjects this pass looked at (`scannedProjects`; a
 * null project means platform-wide and is always in scope), so paging through projects never
 * resolves what was simply not examined. Duplicate condition keys open one incident.
 */
export function planIncidentTransitions(
  open: readonly OpenIncident[],
  active: readonly Condition[],
  scannedProjects: ReadonlySet<string> | ((incident: OpenIncident) => boolean),
): IncidentPlan {
  // A predicate scopes finer than projects (e.g. only the jobs this pass inspected).
  const inScope = typeof scannedProjects === 'function' ? scannedProjects : (i: OpenIncident) => i.projectId === null || scannedProjects.has(i.projectId);
  const openKeys = new Set(open.map((i) => i.key));
  const activeKeys = new Set(active.map((c) => c.key));
  const toOpen: Condition[] = [];
  const seen = new Set<string>();
  for (const c of active) {
    if (openKeys.has(c.key) || seen.has(c.key)) continue;
    seen.add(c.key);
    toOpen.push(c);
  }
  const toResolve = open.filter((i) => !activeKeys.has(i.key) && inScope(i));
  return { open: toOpen, resolve: toResolve };
}
