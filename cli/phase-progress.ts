// Live progress of deploy, rollback and restore: phase changes written as they happen, through
// Output (`out.phases()`). With --json each change is a JSON line on stdout; on a terminal one
// spinner line on stderr is redrawn with the time so far; otherwise one plain line per change on stderr.
import { phaseJsonLine, phaseLine, spinnerLine, type PhaseEvent } from './progress-events.js';

/** Where and how progress is written; Output provides it. */
export interface PhaseSink {
  mode: 'json' | 'terminal' | 'lines';
  /** A line on stdout (JSON lines). */
  stdoutLine(line: string): void;
  /** A line on stderr (plain lines). */
  stderrLine(line: string): void;
  /** Replace the terminal's progress line. */
  draw(text: string): void;
  /** Milliseconds on the command's clock. */
  now(): number;
}

/** The phases of one running command. */
export interface PhaseReporter {
  /** Enter a phase; repeating the current one changes nothing. */
  phase(name: string, extra?: { releaseId?: string; at?: string }): void;
  /** A detail of the current phase (bytes sent, packing), shown on the terminal line only; none clears it. */
  detail(text?: string): void;
  /** Stop redrawing (the caller prints the result next). */
  stop(): void;
}

// How often the terminal line is redrawn: the spinner turns and the elapsed time moves.
const FRAME_MS = 120;

/** Start reporting; `startedAt` is when the command began (elapsed times count from it). */
export function startPhaseProgress(sink: PhaseSink, startedAt: number): PhaseReporter {
  let current: PhaseEvent | null = null;
  let detail: string | undefined;
  let frame = 0;
  let ticker: ReturnType<typeof setInterval> | undefined;
  const redraw = (): void => {
    if (current) sink.draw(spinnerLine(frame++, current, sink.now() - startedAt, detail));
  };
  return {
    phase(name, extra = {}) {
      if (current?.phase === name) return;
      current = { event: 'phase', phase: name, elapsedMs: Math.max(0, sink.now() - startedAt), ...extra };
      detail = undefined;
      if (sink.mode === 'json') sink.stdoutLine(phaseJsonLine(current));
      else if (sink.mode === 'lines') sink.stderrLine(`${phaseLine(current)}\n`);
      else {
        redraw();
        // Unref'd: a forgotten stop() never keeps the process alive.
        ticker ??= setInterval(redraw, FRAME_MS);
        ticker.unref?.();
      }
    },
    detail(text) {
      // The first detail of a phase is drawn at once (a fast upload may end before the next frame).
      const first = detail === undefined;
      detail = text;
      if (first && text !== undefined && sink.mode === 'terminal') redraw();
    },
    stop() {
      if (ticker) clearInterval(ticker);
      ticker = undefined;
      current = null;
    },
  };
}
