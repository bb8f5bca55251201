// A small SQLite tokenizer: enough to find statement boundaries and keywords without being fooled by
// strings, quoted identifiers or comments. It does not validate SQL; SQLite does that when applying.

/** One token. `value` is the upper-cased keyword for words and the unquoted name for quoted identifiers. */
export interface SqlToken {
  kind: 'word' | 'ident' | 'string' | 'number' | 'param' | 'punct';
  value: string;
  /** 1-based line of the token's first character. */
  line: number;
}

const wordStart = /[A-Za-z_\u0080-\uffff]/;
const wordPart = /[A-Za-z0-9_$\u0080-\uffff]/;

/** Split SQL text into tokens, skipping whitespace and `--` / `/* *\/` comments. */
export function tokenizeSql(sql: string): SqlToken[] {
  const tokens: SqlToken[] = [];
  let i = 0;
  let line = 1;
  const advanceTo = (end: number): void => {
    for (let k = i; k < end; k++) if (sql[k] === '\n') line++;
    i = end;
  };
  while (i < sql.length) {
    const c = sql[i]!;
    const start = line;
    if (/\s/.test(c)) {
      advanceTo(i + 1);
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      advanceTo(end < 0 ? sql.length : end);
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      advanceTo(end < 0 ? sql.length : end + 2);
    } else if (c === "'" || c === '"' || c === '`') {
      const end = quotedEnd(sql, i, c);
      tokens.push({ kind: c === "'" ? 'string' : 'ident', value: sql.slice(i + 1, end - 1).replaceAll(c + c, c), line: start });
      advanceTo(end);
    } else if (c === '[') {
      const close = sql.indexOf(']', i);
      const end = close < 0 ? sql.length : close + 1;
      tokens.push({ kind: 'ident', value: sql.slice(i + 1, end - 1), line: start });
      advanceTo(end);
    } else if ((c === 'x' || c === 'X') && sql[i + 1] === "'") {
      const end = quotedEnd(sql, i + 1, "'");
      tokens.push({ kind: 'string', value: sql.slice(i + 2, end - 1), line: start });
      advanceTo(end);
    } else if (wordStart.test(c)) {
      let end = i + 1;
      while (end < sql.length && wordPart.test(sql[end]!)) end++;
      tokens.push({ kind: 'word', value: sql.slice(i, end).toUpperCase(), line: start });
      advanceTo(end);
    } else if (/[0-9]/.test(c) || (c === '.' && /[0-9]/.test(sql[i + 1] ?? ''))) {
      let end = i + 1;
      while (end < sql.length && /[0-9A-Za-z_.]/.test(sql[end]!)) end++;
      tokens.push({ kind: 'number', value: sql.slice(i, end), line: start });
      advanceTo(end);
    } else if ((c === '?' || c === ':' || c === '@' || c === '$') && i + 1 <= sql.length) {
      let end = i + 1;
      while (end < sql.length && wordPart.test(sql[end]!)) end++;
      tokens.push({ kind: 'param', value: sql.slice(i, end), line: start });
      advanceTo(end);
    } else {
      tokens.push({ kind: 'punct', value: c, line: start });
      advanceTo(i + 1);
    }
  }
  return tokens;
}

/** Index just past the closing quote (a doubled quote is an escaped one); end of text if unclosed. */
function quotedEnd(sql: string, open: number, quote: string): number {
  let k = open + 1;
  while (k < sql.length) {
    if (sql[k] === quote) {
      if (sql[k + 1] === quote) k += 2;
      else return k + 1;
    } else {
      k++;
    }
  }
  return sql.length;
}

/**
 * Group tokens into statements at top-level `;`. The `BEGIN … END` body of CREATE TRIGGER (with
 * nested CASE … END) is kept inside its statement.
 */
export function splitStatements(tokens: readonly SqlToken[]): SqlToken[][] {
  const statements: SqlToken[][] = [];
  let current: SqlToken[] = [];
  let depth = 0;
  for (const token of tokens) {
    if (token.kind === 'punct' && token.value === ';' && depth === 0) {
      if (current.length > 0) statements.push(current);
      current = [];
      continue;
    }
    current.push(token);
    if (token.kind !== 'word' || !isCreateTrigger(current)) continue;
    if (token.value === 'BEGIN' || (depth > 0 && token.value === 'CASE')) depth++;
    else if (token.value === 'END' && depth > 0) depth--;
  }
  if (current.length > 0) statements.push(current);
  return statements;
}

function isCreateTrigger(statement: readonly SqlToken[]): boolean {
  const words = statement.slice(0, 3).map((t) => (t.kind === 'word' ? t.value : ''));
  if (words[0] !== 'CREATE') return false;
  return words[1] === 'TRIGGER' || ((words[1] === 'TEMP' || words[1] === 'TEMPORARY') && words[2] === 'TRIGGER');
}
