// Pure detection of migration statements the service considers unsafe (refused unless svc.deploy.json
// sets `database.allowUnsafeMigrations`): they escape the one migration transaction, touch other
// databases or settings, or write to tables the platform and SQLite reserve.
import { SvcError } from '../../src/core/errors.js';
import type { MigrationFile } from './migration-files.js';
import { splitStatements, tokenizeSql, type SqlToken } from './sql-tokens.js';

/** Kinds of unsafe statements. */
export type UnsafeKind = 'attach' | 'pragma' | 'vacuum' | 'transaction-control' | 'reserved-table-write';

/** One unsafe statement found in a migration. */
export interface UnsafeFinding {
  kind: UnsafeKind;
  /** 1-based line where the statement starts. */
  line: number;
  /** The keyword or reserved table that made it unsafe. */
  detail: string;
}

/** Both switches must allow unsafe migrations: the app's config and the operator's setting. */
export interface UnsafeMigrationPolicy {
  /** `database.allowUnsafeMigrations` from svc.deploy.json. */
  allowUnsafeMigrations: boolean;
  /** The operator setting (e.g. `SVC_ALLOW_UNSAFE_MIGRATIONS`). */
  operatorAllowsUnsafe: boolean;
}

const leading: Record<string, UnsafeKind> = {
  ATTACH: 'attach',
  DETACH: 'attach',
  PRAGMA: 'pragma',
  VACUUM: 'vacuum',
  BEGIN: 'transaction-control',
  COMMIT: 'transaction-control',
  END: 'transaction-control',
  ROLLBACK: 'transaction-control',
  SAVEPOINT: 'transaction-control',
  RELEASE: 'transaction-control',
};

/** Whether a table name lies in a reserved namespace (`_svc_*` for svc, `sqlite_*` for SQLite). */
export function isReservedTable(name: string): boolean {
  const lower = name.toLowerCase();
  return lower.startsWith('_svc_') || lower.startsWith('sqlite_');
}

/** Find every unsafe statement in a migration's SQL (strings and comments never match). */
export function findUnsafeStatements(sql: string): UnsafeFinding[] {
  const findings: UnsafeFinding[] = [];
  for (const statement of splitStatements(tokenizeSql(sql))) {
    const body = skipExplain(statement);
    const first = body[0];
    if (first?.kind === 'word' && leading[first.value]) findings.push({ kind: leading[first.value]!, line: first.line, detail: first.value });
    for (const target of writeTargets(body)) {
      if (isReservedTable(target.value)) findings.push({ kind: 'reserved-table-write', line: target.line, detail: target.value });
    }
  }
  return findings;
}

/**
 * Reject pending migrations with unsafe statements unless both switches allow them. Returns the
 * findings per file either way, so the caller can audit allowed unsafe migrations.
 */
export function checkMigrationSafety(files: readonly MigrationFile[], policy: UnsafeMigrationPolicy): { file: string; findings: UnsafeFinding[] }[] {
  const report = files.map((f) => ({ file: f.name, findings: findUnsafeStatements(f.sql) })).filter((r) => r.findings.length > 0);
  const allowed = policy.allowUnsafeMigrations && policy.operatorAllowsUnsafe;
  const firstBad = report[0];
  if (firstBad && !allowed) {
    const finding = firstBad.findings[0]!;
    throw new SvcError('SVC_MIGRATION_UNSAFE', `${firstBad.file} line ${finding.line}: ${finding.kind} (${finding.detail})`, {
      details: {
        file: firstBad.file,
        line: finding.line,
        kind: finding.kind,
        configAllows: policy.allowUnsafeMigrations,
        operatorAllows: policy.operatorAllowsUnsafe,
      },
    });
  }
  return report;
}

function skipExplain(statement: SqlToken[]): SqlToken[] {
  let k = 0;
  while (statement[k]?.kind === 'word' && ['EXPLAIN', 'QUERY', 'PLAN'].includes(statement[k]!.value)) k++;
  return statement.slice(k);
}

/** Tables (and indexes, views, triggers) a statement creates, changes or writes rows of. */
function writeTargets(tokens: SqlToken[]): SqlToken[] {
  const targets: SqlToken[] = [];
  const word = (k: number): string => (tokens[k]?.kind === 'word' ? tokens[k]!.value : '');
  const push = (k: number): void => {
    const name = qualifiedName(tokens, k);
    if (name) targets.push(name);
  };
  const isCreate = word(0) === 'CREATE';
  for (let k = 0; k < tokens.length; k++) {
    const w = word(k);
    if (w === 'INTO') push(k + 1);
    else if (w === 'UPDATE') push(word(k + 1) === 'OR' ? k + 3 : k + 1);
    else if (w === 'DELETE' && word(k + 1) === 'FROM') push(k + 2);
    else if ((w === 'ALTER' && word(k + 1) === 'TABLE') || w === 'DROP') push(skipIfExists(tokens, k + 2));
    else if (w === 'ON' && isCreate) push(k + 1);
    else if (
      isCreate &&
      k > 0 &&
      ['TABLE', 'INDEX', 'VIEW', 'TRIGGER'].includes(w) &&
      ['CREATE', 'TEMP', 'TEMPORARY', 'UNIQUE', 'VIRTUAL'].includes(word(k - 1))
    ) {
      push(skipIfExists(tokens, k + 1));
    }
  }
  return targets;
}

function skipIfExists(tokens: SqlToken[], k: number): number {
  const w = (i: number): string | undefined => (tokens[i]?.kind === 'word' ? tokens[i]!.value : undefined);
  if (w(k) === 'IF' && w(k + 1) === 'NOT' && w(k + 2) === 'EXISTS') return k + 3;
  if (w(k) === 'IF' && w(k + 1) === 'EXISTS') return k + 2;
  return k;
}

/** The table part of `name` or `schema.name` at position k (null if no name is there). */
function qualifiedName(tokens: SqlToken[], k: number): SqlToken | null {
  const isName = (t: SqlToken | undefined): t is SqlToken => t !== undefined && (t.kind === 'word' || t.kind === 'ident' || t.kind === 'string');
  const first = tokens[k];
  if (!isName(first)) return null;
  const dot = tokens[k + 1];
  const second = tokens[k + 2];
  return dot?.kind === 'punct' && dot.value === '.' && isName(second) ? second : first;
}
