// What every check renderer produces (the check-run body) and reads (the render context), and the release
// phases svc/release and svc/preview list. Types only, below check-model.ts and the renderers of each check kind that it dispatches to.
import type { Release } from '../releases/contract.js';

export type PhaseName = 'verified' | 'snapshot' | 'migrations' | 'started' | 'health' | 'active';

/** A release phase as svc/release and svc/preview list it. */
export interface Phase {
  name: PhaseName;
  at: number;
  detail?: string;
}

/** Facts read at render time. */
export interface RenderContext {
  release?: Release | undefined;
  projectSlug: string;
  /** Where the app answers (environment URL). */
  appUrl: string | null;
  /** Console page of the release (details_url), null without SVC_PUBLIC_URL. */
  detailsUrl: string | null;
  /** `uses:` reference of the svc Action, for the timed-out help. */
  actionRef: string;
  /** The control plane's URL (the Action's `server` input), when known. */
  serverUrl?: string | null;
}

/** The fields of POST/PATCH /repos/{owner}/{repo}/check-runs this model sets. */
export interface CheckRunBody {
  status: 'queued' | 'in_progress' | 'completed';
  conclusion?: 'success' | 'failure' | 'skipped' | 'timed_out' | 'neutral';
  started_at?: string;
  completed_at?: string;
  details_url?: string;
  external_id?: string;
  output: { title: string; summary: string };
}
