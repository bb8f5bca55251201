/**
 * Commands are data: pure functions build these, one executor runs them without a shell.
 * Secret values never go in `args`; they travel in `env` only.
 */
export interface Command {
  /** Executable name or path (resolved through PATH by the executor, never by a shell). */
  readonly file: string;
  readonly args: readonly string[];
  readonly cwd?: string;
  /** Environment additions; merged over the executor's base environment unless `replaceEnv`. */
  readonly env?: Readonly<Record<string, string>>;
  readonly replaceEnv?: boolean;
}

/** Build a Command value; a tiny helper so call sites read like argv. */
export function command(file: string, args: readonly string[], options: Omit<Command, 'file' | 'args'> = {}): Command {
  return { file, args: [...args], ...options };
}
