// What the Action says to the runner, spoken through @actions/core: inputs (INPUT_*), masks, log
// groups, annotations, outputs (GITHUB_OUTPUT) and the job summary (GITHUB_STEP_SUMMARY). run-action
// receives it as one value, so everything the run tells the runner goes through this seam.
import { error, getInput, group, info, notice, setOutput, setSecret, summary, warning } from '@actions/core';

/** Environment as the runner passes it. */
export type ActionEnv = Readonly<Record<string, string | undefined>>;

/** Reads one input the way the runner names it (`INPUT_<NAME>`), trimmed; '' when unset. */
export type ReadInput = (name: string, options?: { required?: boolean }) => string;

/** Kinds of annotation shown on the run's page. */
export type Annotation = 'error' | 'warning' | 'notice';

/** Where the Action reads inputs and writes what the runner reads. */
export interface WorkflowIo {
  input: ReadInput;
  /** Mask a secret in every later log line. */
  mask(secret: string): void;
  /** Run `fn` inside a collapsible log group. */
  group<T>(name: string, fn: () => Promise<T>): Promise<T>;
  log(line: string): void;
  annotate(kind: Annotation, message: string, title: string): void;
  /** Set outputs (no-op without GITHUB_OUTPUT, e.g. when run by hand). */
  setOutputs(outputs: Record<string, string>): void;
  /** Append markdown to the job summary (no-op without GITHUB_STEP_SUMMARY). */
  appendSummary(markdown: string): Promise<void>;
}

const annotations = { error, warning, notice } as const;

/** The WorkflowIo of the runner this process runs under (@actions/core reads process.env). */
export function workflowIo(): WorkflowIo {
  return {
    input: (name, options) => getInput(name, options),
    mask: (secret) => setSecret(secret),
    group: (name, fn) => group(name, fn),
    log: (line) => info(line),
    annotate: (kind, message, title) => annotations[kind](message, { title }),
    setOutputs(outputs) {
      // Without the file core would fall back to the retired `::set-output` command.
      if (!process.env.GITHUB_OUTPUT) return;
      for (const [name, value] of Object.entries(outputs)) setOutput(name, value);
    },
    async appendSummary(markdown) {
      // core rejects when the runner offers no summary file; a run by hand simply has none.
      if (!process.env.GITHUB_STEP_SUMMARY) return;
      await summary.addRaw(markdown, !markdown.endsWith('\n')).write();
    },
  };
}
