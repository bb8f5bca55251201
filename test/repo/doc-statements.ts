// Pure readers of what markdown docs state about svc: the SVC_* names they mention, and the exit
// statuses they pair with an error code. The docs-drift test checks both against the registry.

/** An `SVC_*` name as written; `family` for a wildcard such as `SVC_ARTIFACT_*` (name is the prefix, with "_"). */
export interface NameMention {
  name: string;
  family: boolean;
  line: number;
}

/** An exit status the docs pair with a code: "`SVC_X` (exit 65)", "exits 75 with `SVC_X`", or a table row. */
export interface ExitStatement {
  name: string;
  family: boolean;
  exit: number;
  line: number;
  /** Set when the statement names the program: "`SVC_X` (svc-platform exit 2)". */
  program?: 'svc-platform' | 'svc-runner';
}

// A name, then optionally "_*", "*" or "_…" marking a family of names.
const namePattern = /SVC_[A-Z0-9]+(?:_[A-Z0-9]+)*(_\*|\*|_…)?/g;

/** Every SVC_* name in the text, with its 1-based line. A bare "SVC_" or "SVC_*" (the prefix itself) is not a name. */
export function nameMentions(markdown: string): NameMention[] {
  const mentions: NameMention[] = [];
  markdown.split('\n').forEach((text, index) => {
    for (const match of text.matchAll(namePattern)) {
      const family = match[1] !== undefined;
      const base = family ? match[0].slice(0, match[0].length - match[1]!.length) : match[0];
      mentions.push({ name: family ? `${base}_` : base, family, line: index + 1 });
    }
  });
  return mentions;
}

function codeAt(raw: string): { name: string; family: boolean } {
  const family = /(_\*|\*|_…)$/.exec(raw);
  return family ? { name: `${raw.slice(0, raw.length - family[0].length)}_`, family: true } : { name: raw, family: false };
}

const code = '`(SVC_[A-Z0-9_]*[A-Z0-9](?:_\\*|\\*|_…)?)`';
// "`SVC_X` (exit 65)", "`SVC_X`, exit 77", "`SVC_X` … exits 2": the status follows within the clause.
const codeThenExit = new RegExp(`${code}(?:(?!SVC_)[^\`.;]){0,40}?\\bexit(?:s| code| status)?\\s+(\\d+)\\b`, 'g');
// "exits 75 with `SVC_X`".
const exitThenCode = new RegExp(`\\bexits?\\s+(\\d+)\\s+with\\s+${code}`, 'g');

function isTableLine(line: string): boolean {
  return line.trimStart().startsWith('|');
}

function cells(line: string): string[] {
  return line
    .trim()
    .replace(/^\||\|$/g, '')
    .split(/(?<!\\)\|/)
    .map((c) => c.trim());
}

/** Prose statements, read paragraph by paragraph so a statement may wrap across lines. */
function proseStatements(lines: readonly string[]): ExitStatement[] {
  const found: ExitStatement[] = [];
  // The paragraph's lines joined with spaces, and where each line starts in that text.
  let flat = '';
  let starts: { offset: number; line: number }[] = [];
  const lineOf = (offset: number) => starts.filter((s) => s.offset <= offset).at(-1)!.line;
  const flush = () => {
    for (const m of flat.matchAll(codeThenExit)) {
      const program = /\b(svc-platform|svc-runner)\b/.exec(m[0])?.[1] as ExitStatement['program'];
      found.push({ ...codeAt(m[1]!), exit: Number(m[2]), line: lineOf(m.index), ...(program ? { program } : {}) });
    }
    for (const m of flat.matchAll(exitThenCode)) found.push({ ...codeAt(m[2]!), exit: Number(m[1]), line: lineOf(m.index) });
    flat = '';
    starts = [];
  };
  lines.forEach((text, index) => {
    if (text.trim() === '' || isTableLine(text) || text.startsWith('#')) return flush();
    if (flat) flat += ' ';
    starts.push({ offset: flat.length, line: index + 1 });
    flat += text;
  });
  flush();
  return found;
}

/** Table rows under a header with an "Exit", "Exit code" or "Exit status" column: the row's codes exit with that cell's number. */
function tableStatements(lines: readonly string[]): ExitStatement[] {
  const found: ExitStatement[] = [];
  let exitColumn = -1;
  lines.forEach((text, index) => {
    if (!isTableLine(text)) return void (exitColumn = -1);
    const row = cells(text);
    if (row.every((c) => /^:?-+:?$/.test(c))) return;
    const previous = lines[index - 1];
    if (previous === undefined || !isTableLine(previous)) {
      exitColumn = row.findIndex((c) => /^exit( code| status)?$/i.test(c));
      return;
    }
    if (exitColumn < 0) return;
    const exit = /^(\d+)\b/.exec(row[exitColumn] ?? '');
    if (!exit) return;
    row.forEach((cell, column) => {
      if (column === exitColumn) return;
      for (const m of cell.matchAll(new RegExp(code, 'g'))) found.push({ ...codeAt(m[1]!), exit: Number(exit[1]), line: index + 1 });
    });
  });
  return found;
}

/** Every exit status the text pairs with an SVC_* code (inside fenced code blocks nothing is read). */
export function exitStatements(markdown: string): ExitStatement[] {
  let fenced = false;
  const lines = markdown.split('\n').map((line) => {
    if (line.trimStart().startsWith('```')) {
      fenced = !fenced;
      return '';
    }
    return fenced ? '' : line;
  });
  return [...proseStatements(lines), ...tableStatements(lines)].sort((a, b) => a.line - b.line);
}

/** A default the docs state for a setting: "`SVC_X` (default 30 s)", "`SVC_X`, default 80", or a table's Default column. */
export interface DefaultStatement {
  name: string;
  /** The value as written ("30 s", "`on`", "900000"). */
  value: string;
  line: number;
}

const defaultInProse =
  /`(SVC_[A-Z0-9_]*[A-Z0-9])`(?:(?!SVC_)[^`.;]){0,120}?\bdefaults?(?: to| is)?:?\s+(`[^`]+`|[0-9](?:[0-9,_.]*[0-9])?(?:\s*(?:ms|s|seconds?|minutes?|min|hours?|h|days?|MiB|GiB|KiB)\b|%)?)/g;

/** Every default the text states for a single SVC_* setting (fenced code is skipped). */
export function defaultStatements(markdown: string): DefaultStatement[] {
  const found: DefaultStatement[] = [];
  let fenced = false;
  let defaultColumn = -1;
  let nameColumn = -1;
  const lines = markdown.split('\n');
  lines.forEach((text, index) => {
    if (text.trimStart().startsWith('```')) fenced = !fenced;
    if (fenced) return;
    for (const m of text.matchAll(defaultInProse)) found.push({ name: m[1]!, value: m[2]!.trim(), line: index + 1 });
    if (!isTableLine(text)) return void (defaultColumn = -1);
    const row = cells(text);
    if (row.every((c) => /^:?-+:?$/.test(c))) return;
    const previous = lines[index - 1];
    if (previous === undefined || !isTableLine(previous)) {
      defaultColumn = row.findIndex((c) => /^default$/i.test(c));
      nameColumn = row.findIndex((c) => /^(variable|setting|name)$/i.test(c));
      return;
    }
    if (defaultColumn < 0 || nameColumn < 0) return;
    const names = [...(row[nameColumn] ?? '').matchAll(/`(SVC_[A-Z0-9_]*[A-Z0-9])`/g)];
    // One setting per row: rows naming several settings state their defaults in prose.
    if (names.length !== 1 || (row[nameColumn] ?? '').replace(/`[^`]*`/g, '').trim() !== '') return;
    const value = (row[defaultColumn] ?? '').trim();
    if (/^(`[^`]+`|[0-9](?:[0-9,_.]*[0-9])?(?:\s*(?:ms|s|seconds?|minutes?|min|hours?|h|days?|MiB|GiB|KiB)|%)?)$/.test(value))
      found.push({ name: names[0]![1]!, value, line: index + 1 });
  });
  return found;
}

const units: Record<string, number> = {
  ms: 1,
  s: 1000,
  second: 1000,
  seconds: 1000,
  min: 60_000,
  minute: 60_000,
  minutes: 60_000,
  h: 3_600_000,
  hour: 3_600_000,
  hours: 3_600_000,
  day: 86_400_000,
  days: 86_400_000,
};
const byteUnits: Record<string, number> = { KiB: 1024, MiB: 1024 ** 2, GiB: 1024 ** 3 };

/**
 * A stated default as the value the code holds: numbers in the setting's own unit (milliseconds for
 * *_MS, seconds for *_SECONDS, bytes for sizes), words and literals as strings.
 */
export function statedValue(name: string, written: string): number | string {
  const literal = /^`([^`]+)`$/.exec(written);
  const text = literal ? literal[1]! : written;
  const m = /^([0-9][0-9,_]*(?:\.[0-9]+)?)\s*([A-Za-z%]*)$/.exec(text);
  if (!m) return text;
  const value = Number(m[1]!.replace(/[,_]/g, ''));
  const unit = m[2]!;
  if (unit === '' || unit === '%') return value;
  if (unit in byteUnits) return value * byteUnits[unit]!;
  if (unit in units) {
    const perUnit = name.endsWith('_SECONDS') ? 1000 : 1;
    return (value * units[unit]!) / perUnit;
  }
  return text;
}

/** Whether a code value equals a stated one (booleans match true/false and on/off). */
export function sameDefault(code: unknown, stated: number | string): boolean {
  if (typeof code === 'boolean') return String(stated) === String(code) || stated === (code ? 'on' : 'off');
  return code === stated || ((typeof code === 'number' || typeof code === 'string') && String(code) === String(stated));
}

/**
 * SVC_* names a source file uses as settings, skipping comments: `read` are environment reads
 * (`env.SVC_X`, `env['SVC_X']`) and object keys (zod schemas of settings, environments set for
 * apps); `used` adds whole string literals (`'SVC_X'`, `"SVC_X=…"`) and shell expansions (`$SVC_X`).
 * A name only inside a message or a comment is neither.
 */
export function settingNames(source: string): { read: Set<string>; used: Set<string> } {
  const read = new Set<string>();
  const used = new Set<string>();
  const name = 'SVC_[A-Z0-9]+(?:_[A-Z0-9]+)*';
  const reads = new RegExp(`\\benv\\??\\.(${name})|\\benv\\[['"](${name})['"]\\]|^\\s*['"]?(${name})['"]?\\s*:\\s*[\\w'"\`\\[{(]`, 'g');
  const literals = new RegExp(`['"\`](${name})(?:['"\`]|=)|\\$\\{?(${name})`, 'g');
  for (const line of source.split('\n')) {
    if (/^\s*(\/\/|\*|\/\*|#)/.test(line)) continue;
    for (const m of line.matchAll(reads)) {
      const found = m[1] ?? m[2] ?? m[3]!;
      read.add(found);
      used.add(found);
    }
    for (const m of line.matchAll(literals)) used.add(m[1] ?? m[2]!);
  }
  return { read, used };
}
