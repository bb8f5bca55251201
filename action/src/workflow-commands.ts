// The runner protocol an Action speaks (what @actions/core does, in a few lines): inputs from
// INPUT_* variables, `::command::` lines on stdout, outputs and the job summary appended to the
// files named by GITHUB_OUTPUT and GITHUB_STEP_SUMMARY.
import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { EOL } from 'node:os';

/** Environment as the runner passes it. */
export type ActionEnv = Readonly<Record<string, string | undefined>>;

/** The value of input `name` (`INPUT_<NAME>`, spaces → `_`, upper-cased), trimmed; '' when unset. Pure. */
export function readInput(env: ActionEnv, name: string): string {
  return (env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`] ?? '').trim();
}

/** Escape the message part of a workflow command. Pure. */
export function escapeData(value: string): string {
  return value.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** Escape a property value of a workflow command. Pure. */
export function escapeProperty(value: string): string {
  return escapeData(value).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

/** One workflow command line, e.g. `::error title=svc::message`. Pure. */
export function workflowCommand(name: string, message: string, properties: Record<string, string> = {}): string {
  const props = Object.entries(properties)
    .map(([key, value]) => `${key}=${escapeProperty(value)}`)
    .join(',');
  return `::${name}${props ? ` ${props}` : ''}::${escapeData(message)}${EOL}`;
}

/**
 * One entry of the GITHUB_OUTPUT file in the multi-line form, with a random delimiter that the
 * value cannot contain (so a value can never inject another output). Pure apart from the delimiter.
 */
export function outputEntry(name: string, value: string, delimiter = `ghadelimiter_${randomUUID()}`): string {
  if (name.includes(delimiter) || value.includes(delimiter)) throw new Error('output delimiter collision');
  return `${name}<<${delimiter}${EOL}${value}${EOL}${delimiter}${EOL}`;
}

/** Where the Action writes what the runner reads. */
export interface WorkflowIo {
  /** Append outputs (no-op without GITHUB_OUTPUT, e.g. when run by hand). */
  setOutputs(outputs: Record<string, string>): void;
  /** Append markdown to the job summary (no-op without GITHUB_STEP_SUMMARY). */
  appendSummary(markdown: string): void;
  /** Write a workflow command or log line to stdout. */
  write(text: string): void;
}

/** The WorkflowIo of a runner environment. */
export function workflowIo(env: ActionEnv, write: (text: string) => void = (text) => void process.stdout.write(text)): WorkflowIo {
  return {
    setOutputs(outputs) {
      const file = env.GITHUB_OUTPUT;
      if (!file) return;
      appendFileSync(file, Object.entries(outputs).map(([name, value]) => outputEntry(name, value)).join(''), 'utf8');
    },
    appendSummary(markdown) {
      const file = env.GITHUB_STEP_SUMMARY;
      if (!file) return;
      appendFileSync(file, markdown.endsWith('\n') ? markdown : `${markdown}\n`, 'utf8');
    },
    write,
  };
}
