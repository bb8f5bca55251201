// Pure decisions of previews: what a pull request event does, and which previews have idled long enough to stop.

/** What opening (or pushing to) a pull request does, given what exists. */
export type OpenDecision = 'fork' | 'update' | 'limit' | 'create';

export function decideOpen(input: { fork: boolean; exists: boolean; live: number; limit: number }): OpenDecision {
  // A fork's code is untrusted and its workflow has no OIDC token: never deployed automatically.
  if (input.fork) return 'fork';
  if (input.exists) return 'update';
  return input.live >= input.limit ? 'limit' : 'create';
}

/** A running preview as the idle sweep sees it. */
export interface IdleCandidate {
  projectId: string;
  /** Last request, or when the preview last started serving (whichever is later). */
  lastActivityAt: number;
}

/** The previews to stop: no activity for idleStopMs (0 = never stop). */
export function idlePreviews(candidates: readonly IdleCandidate[], now: number, idleStopMs: number): string[] {
  if (idleStopMs <= 0) return [];
  return candidates.filter((c) => now - c.lastActivityAt >= idleStopMs).map((c) => c.projectId);
}
