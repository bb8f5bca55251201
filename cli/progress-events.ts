// What live progress looks like (pure): the phase events of deploy, rollback and restore, and how each
// becomes a line — a JSON line with --json, a plain line per phase when stderr is not a terminal, and
// the one redrawn spinner line on a terminal. phase-progress.ts writes them.

/** One phase change of a running command; `elapsedMs` counts from the command's start. */
export interface PhaseEvent {
  event: 'phase';
  phase: string;
  elapsedMs: number;
  /** The release the phase belongs to, once the server named it. */
  releaseId?: string;
  /** When the server recorded the step (ISO 8601), for server-side phases. */
  at?: string;
}

// Short descriptions of the phases; an unknown phase (a newer server) is shown by its name alone.
const PHASE_TEXT: Readonly<Record<string, string>> = {
  pack: 'building and packing the app',
  upload: 'uploading the artifact',
  verify: 'verifying the artifact',
  extract: 'unpacking the release',
  'stop-active': 'stopping the active release',
  snapshot: 'snapshotting the database',
  migrate: 'running migrations',
  start: 'starting the app',
  health: 'waiting for the health check',
  activate: 'switching traffic to the release',
  recovery: 'setting up point-in-time recovery',
  rollback: 'rolling back (the target starts and must pass its health check)',
  restore: 'restoring the database',
  'activate-restore': 'activating the restored database (the app restarts)',
};

/** `0.4s`, `12.3s`, `2m05s`. */
export function formatElapsed(ms: number): string {
  const safe = Math.max(0, ms);
  if (safe < 60_000) return `${(safe / 1000).toFixed(1)}s`;
  const minutes = Math.floor(safe / 60_000);
  const seconds = Math.floor((safe % 60_000) / 1000);
  return `${minutes}m${String(seconds).padStart(2, '0')}s`;
}

/** The phase and what it does: `health — waiting for the health check`. */
export function describePhase(phase: string): string {
  const text = PHASE_TEXT[phase];
  return text ? `${phase} — ${text}` : phase;
}

/** The plain line of a phase change (no terminal): elapsed time, then the phase. */
export function phaseLine(event: PhaseEvent): string {
  return `[${formatElapsed(event.elapsedMs).padStart(6)}] ${describePhase(event.phase)}`;
}

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** The redrawn terminal line: spinner frame, the phase (or its detail, such as bytes sent) and the time so far. */
export function spinnerLine(frame: number, event: PhaseEvent, nowElapsedMs: number, detail?: string): string {
  const glyph = SPINNER[Math.abs(frame) % SPINNER.length]!;
  return `${glyph} ${detail ?? describePhase(event.phase)} · ${formatElapsed(nowElapsedMs)}`;
}

/** One JSON line of a phase event. */
export function phaseJsonLine(event: PhaseEvent): string {
  return `${JSON.stringify(event)}\n`;
}

/**
 * The last JSON line: the command's JSON document (what `--json` printed before events were streamed)
 * with `"event": "result"` added, so a reader of the last line finds the same fields.
 */
export function resultJsonLine(document: unknown): string {
  const fields = document !== null && typeof document === 'object' && !Array.isArray(document) ? document : { value: document };
  return `${JSON.stringify({ event: 'result', ...fields })}\n`;
}
