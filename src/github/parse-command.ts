// Pull-request comment commands, parsed strictly (pure): the comment's first line must be the command;
// unknown commands, flags, duplicates and stray arguments are errors, never guesses.
//   /svc help
//   /svc rollback <release-id>
//   /svc rollback <release-id> --restore-data --confirm "restore <project>"

export type SvcCommand = { kind: 'help' } | { kind: 'rollback'; releaseId: string; restoreData: boolean; confirm: string | null };

export type ParseResult = { type: 'none' } | { type: 'command'; command: SvcCommand } | { type: 'error'; message: string };

const RELEASE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

/** Usage text (replies to `/svc help` and to parse errors). */
export function commandHelp(slug: string | null): string {
  const project = slug ?? '<project>';
  return [
    '**svc commands** (the first line of a pull-request comment; needs write access to this repository):',
    '',
    '| Command | What it does |',
    '| --- | --- |',
    '| `/svc rollback <release-id>` | Make an earlier release active again; the database is unchanged (code-only). |',
    `| \`/svc rollback <release-id> --restore-data --confirm "restore ${project}"\` | Also restore the database snapshot taken before the current release (only the immediately previous release); writes since then are lost. |`,
    '| `/svc help` | Show this help. |',
  ].join('\n');
}

/** Split a command line into words; double quotes group words. Null on an unterminated quote. */
export function tokenize(line: string): string[] | null {
  const words: string[] = [];
  let current = '';
  let inWord = false;
  let quoted = false;
  for (const ch of line) {
    if (quoted) {
      if (ch === '"') quoted = false;
      else current += ch;
      continue;
    }
    if (ch === '"') {
      quoted = true;
      inWord = true;
    } else if (ch === ' ' || ch === '\t') {
      if (inWord) words.push(current);
      current = '';
      inWord = false;
    } else {
      current += ch;
      inWord = true;
    }
  }
  if (quoted) return null;
  if (inWord) words.push(current);
  return words;
}

/** Parse a comment body. `none` when it is not an svc command at all. */
export function parseCommand(body: string): ParseResult {
  const firstLine = (body.split(/\r?\n/, 1)[0] ?? '').replace(/\s+$/, '');
  if (firstLine !== '/svc' && !firstLine.startsWith('/svc ') && !firstLine.startsWith('/svc\t')) return { type: 'none' };
  const words = tokenize(firstLine);
  if (!words) return { type: 'error', message: 'A quoted value is not closed.' };
  const [, name, ...rest] = words;
  if (name === undefined) return { type: 'error', message: 'Missing command.' };
  if (name === 'help')
    return rest.length === 0
      ? { type: 'command', command: { kind: 'help' } }
      : { type: 'error', message: `\`/svc help\` takes no arguments (got \`${rest[0]}\`).` };
  if (name === 'rollback') return parseRollback(rest);
  return { type: 'error', message: `Unknown command \`${name}\`.` };
}

function parseRollback(args: string[]): ParseResult {
  let releaseId: string | null = null;
  let restoreData = false;
  let confirm: string | null = null;
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--restore-data') {
      if (restoreData) return { type: 'error', message: '`--restore-data` is given twice.' };
      restoreData = true;
    } else if (arg === '--confirm' || arg.startsWith('--confirm=')) {
      if (confirm !== null) return { type: 'error', message: '`--confirm` is given twice.' };
      const value = arg === '--confirm' ? args[++i] : arg.slice('--confirm='.length);
      if (value === undefined || value === '') return { type: 'error', message: '`--confirm` needs the phrase in quotes, e.g. `--confirm "restore my-app"`.' };
      confirm = value;
    } else if (arg.startsWith('-')) {
      return { type: 'error', message: `Unknown flag \`${arg}\`.` };
    } else if (releaseId === null) {
      if (!RELEASE_ID.test(arg)) return { type: 'error', message: `\`${arg}\` is not a release id.` };
      releaseId = arg;
    } else {
      return { type: 'error', message: `Unexpected argument \`${arg}\`.` };
    }
  }
  if (releaseId === null) return { type: 'error', message: '`/svc rollback` needs a release id.' };
  if (confirm !== null && !restoreData) return { type: 'error', message: '`--confirm` only goes with `--restore-data`.' };
  return { type: 'command', command: { kind: 'rollback', releaseId, restoreData, confirm } };
}
