// Which command an argv names, read before commander parses it, so main() loads only that command's
// module. Global options come before the name: `--cwd` takes a value, every other flag does not.

/** What the argv asks for: the first word (the command name), and whether it is only `--version`. */
export interface WantedCommand {
  name: string | undefined;
  /** `-v`/`--version` with no command: commander prints the version before any command is needed. */
  versionOnly: boolean;
}

export function commandNameOf(argv: readonly string[]): WantedCommand {
  let version = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    // After `--` every word is an operand; let commander decide with every command known.
    if (arg === '--') return { name: undefined, versionOnly: false };
    if (arg === '--cwd') {
      i++;
      continue;
    }
    if (arg === '-v' || arg === '--version') version = true;
    if (arg === '-h' || arg === '--help') return { name: undefined, versionOnly: false };
    if (!arg.startsWith('-')) return { name: arg, versionOnly: false };
  }
  return { name: undefined, versionOnly: version };
}
