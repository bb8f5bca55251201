// Rendering for every command: human text by default, one JSON document with --json,
// progress only on a TTY, and errors as `error SVC_CODE: message` + hint (or JSON on stdout).
// Commands with live phases (deploy, rollback, restore) call `phases()`: with --json their output
// becomes JSON lines, the last one the document with "event": "result".
import { errorCodes, SvcError } from '../src/core/errors.js';
import type { Clock } from '../src/core/clock.js';
import type { ErrorCodeDefinition } from '../src/core/error-codes/define.js';
import { startPhaseProgress, type PhaseReporter } from './phase-progress.js';
import { resultJsonLine } from './progress-events.js';
import { terminalColors, type Colors } from './terminal-colors.js';
import type { Writer } from './writer.js';

// Back to column 0 and erase the line: how the progress line redraws (picocolors only paints).
const CLEAR_LINE = '\r\x1b[2K';

/** A progress line on stderr; a no-op unless stderr is a TTY and --json is off. */
export interface Progress {
  /** Replace the line's text (throttled). */
  update(text: string): void;
  /** Clear the line; optionally leave a final line behind. */
  done(finalLine?: string): void;
}

/** Thrown by a command that already rendered its own failure (e.g. doctor's check list). */
export class ReportedError extends Error {
  constructor(readonly error: SvcError) {
    super(error.message);
    this.name = 'ReportedError';
  }
}

type Paint = (text: string) => string;

/** The renderer a command uses; created once per run by main(). */
export class Output {
  readonly json: boolean;
  private readonly stdout: Writer;
  private readonly stderr: Writer;
  private readonly clock: Clock;
  private readonly colors: Colors;
  private progressActive = false;
  private readonly startedAt: number;
  private phaseReporter: PhaseReporter | undefined;

  constructor(options: { stdout: Writer; stderr: Writer; json: boolean; clock: Clock; env: Readonly<Record<string, string | undefined>> }) {
    this.stdout = options.stdout;
    this.stderr = options.stderr;
    this.json = options.json;
    this.clock = options.clock;
    this.startedAt = options.clock.now();
    this.colors = terminalColors({ env: options.env, isTTY: options.stdout.isTTY === true, json: options.json });
  }

  /** Print a command's result: `value` as JSON with --json, otherwise the human text. */
  result(value: unknown, human: () => string | readonly string[]): void {
    this.phaseReporter?.stop();
    if (this.json) {
      if (this.phaseReporter) this.stdout.write(resultJsonLine(value));
      else this.writeJson(value);
      return;
    }
    this.clearProgress();
    const text = human();
    const lines = typeof text === 'string' ? text : text.join('\n');
    if (lines.length > 0) this.stdout.write(lines.endsWith('\n') ? lines : `${lines}\n`);
  }

  /** Write one JSON document to stdout (even in human mode; for `--json`-only helpers). */
  writeJson(value: unknown): void {
    this.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
  }

  /** A human note on stderr (a step starting, a warning); silent with --json. */
  note(line: string): void {
    if (this.json) return;
    this.clearProgress();
    this.stderr.write(`${line}\n`);
  }

  /** Raw text on stderr in human mode (e.g. streamed build output); silent with --json. */
  passthrough(chunk: string): void {
    if (this.json) return;
    this.clearProgress();
    this.stderr.write(chunk);
  }

  /** Start a one-line progress display labelled `label`. */
  progress(label: string): Progress {
    if (this.json || this.stderr.isTTY !== true) return { update() {}, done: (line) => line && this.note(line) };
    const phases = this.phaseReporter;
    // During live phases the one terminal line is the phase's: this progress becomes its detail.
    if (phases)
      return {
        update: (text) => phases.detail(`${label} ${text}`),
        done: (line) => {
          phases.detail();
          if (line) this.note(line);
        },
      };
    let last = -Infinity;
    let pending: string | undefined;
    const draw = (text: string): void => {
      this.stderr.write(`${CLEAR_LINE}${label} ${text}`);
      this.progressActive = true;
      last = this.clock.now();
      pending = undefined;
    };
    return {
      update: (text) => {
        // Redraw at most every 80 ms so large trees do not flood the terminal.
        if (this.clock.now() - last >= 80) draw(text);
        else pending = text;
      },
      done: (line) => {
        if (pending !== undefined && line === undefined) draw(pending);
        this.clearProgress();
        if (line) this.stderr.write(`${line}\n`);
      },
    };
  }

  /**
   * Live phases of this command (elapsed times count from its start); from now on its --json output
   * is JSON lines ending with the result line.
   */
  phases(): PhaseReporter {
    this.phaseReporter ??= startPhaseProgress(
      {
        mode: this.json ? 'json' : this.stderr.isTTY === true ? 'terminal' : 'lines',
        stdoutLine: (line) => this.stdout.write(line),
        stderrLine: (line) => {
          this.clearProgress();
          this.stderr.write(line);
        },
        draw: (text) => {
          this.stderr.write(`${CLEAR_LINE}${text}`);
          this.progressActive = true;
        },
        now: () => this.clock.now(),
      },
      this.startedAt,
    );
    return this.phaseReporter;
  }

  /** Render an error: JSON on stdout with --json, otherwise `error CODE: message` and a hint on stderr. */
  error(error: unknown): void {
    const svc = toSvcError(error);
    this.phaseReporter?.stop();
    if (this.json) {
      if (this.phaseReporter) this.stdout.write(resultJsonLine(svc.toBody()));
      else this.writeJson(svc.toBody());
      return;
    }
    this.clearProgress();
    this.stderr.write(`${this.paint('red')('error')} ${svc.code}: ${svc.message}\n`);
    const hint = (errorCodes[svc.code] as ErrorCodeDefinition | undefined)?.hint;
    if (hint) this.stderr.write(`${this.paint('dim')('hint')}  ${hint}\n`);
  }

  /** Colour helper (picocolors); returns text unchanged when colours are off (see terminal-colors.ts). */
  paint(color: 'red' | 'green' | 'yellow' | 'dim' | 'bold'): Paint {
    return this.colors[color];
  }

  private clearProgress(): void {
    if (!this.progressActive) return;
    this.stderr.write(CLEAR_LINE);
    this.progressActive = false;
  }
}

/** Any thrown value as an SvcError (unknown failures become SVC_INTERNAL, keeping their message). */
export function toSvcError(error: unknown): SvcError {
  if (error instanceof ReportedError) return error.error;
  if (error instanceof SvcError) return error;
  const message = error instanceof Error ? error.message : String(error);
  return new SvcError('SVC_INTERNAL', message, { cause: error });
}

/** Align `label value` pairs into columns for human output. */
export function formatPairs(pairs: ReadonlyArray<readonly [string, string]>): string[] {
  const width = Math.max(0, ...pairs.map(([label]) => label.length));
  return pairs.map(([label, value]) => `${label.padEnd(width)}  ${value}`);
}
