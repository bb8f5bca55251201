// Helpers for platform recovery tests: make sure the built package (what deployed apps import as
// `@svc-dev/svc/operations`) is current, talk to the runtime-demo app over HTTP, read restored databases.
import { execFileSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { ROOT } from '../../releases/release-support.js';

/** Apps import svc from dist/: rebuild it when the recovery sources are newer than the build. */
export function ensureBuiltPackage(): void {
  const sources = ['src/operations.ts', 'src/recovery/platform/attach-platform-recovery.ts', 'src/recovery/open-point-in-time-recovery.ts'].map((p) =>
    join(ROOT, p),
  );
  const built = join(ROOT, 'dist', 'src', 'recovery', 'platform', 'attach-platform-recovery.js');
  const stale =
    !existsSync(built) || !existsSync(join(ROOT, 'dist', 'src', 'operations.js')) || sources.some((s) => statSync(s).mtimeMs > statSync(built).mtimeMs);
  if (stale)
    execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(ROOT, 'tsconfig.build.json')], {
      cwd: ROOT,
      stdio: 'ignore',
      timeout: 300_000,
    });
}

/** A signed-in user of the runtime-demo app. */
export interface DemoUser {
  cookie: string;
  csrf: string;
}

/** Sign up on the demo app. */
export async function signUp(base: string, email: string): Promise<DemoUser> {
  const response = await fetch(`${base}/__svc/auth/signup`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email, password: 'demo password 1' }),
  });
  if (response.status !== 201) throw new Error(`signup ${response.status}: ${await response.text()}`);
  return { cookie: response.headers.getSetCookie()[0]!.split(';')[0]!, csrf: ((await response.json()) as { csrfToken: string }).csrfToken };
}

/** Call a demo function (mutations with the CSRF header). */
export async function call(
  base: string,
  user: DemoUser,
  kind: 'query' | 'mutation',
  path: string,
  args: unknown,
): Promise<{ status: number; value: unknown; code?: string }> {
  const response = await fetch(`${base}/__svc/${kind}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: user.cookie, 'x-svc-csrf': user.csrf },
    body: JSON.stringify(args),
  });
  const body = (await response.json()) as { value?: unknown; error?: { code: string } };
  return { status: response.status, value: body.value, ...(body.error ? { code: body.error.code } : {}) };
}

/** Task texts the demo app serves to a user (sorted). */
export async function servedTasks(base: string, user: DemoUser): Promise<string[]> {
  const result = await call(base, user, 'query', 'tasks/list', {});
  if (result.status !== 200) throw new Error(`list ${result.status} ${result.code ?? ''}`);
  return (result.value as { text: string }[]).map((t) => t.text).sort();
}

/** Task texts and table names of a database file (read-only). */
export function readDatabase(path: string): { tasks: string[]; tables: string[]; notes: string[] } {
  const db = new Database(path, { readonly: true, fileMustExist: true });
  try {
    const tables = (db.prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name`).all() as { name: string }[]).map((r) => r.name);
    const tasks = (db.prepare(`SELECT json_extract(doc, '$.text') AS text FROM tasks`).all() as { text: string }[]).map((r) => r.text).sort();
    const notes = tables.includes('notes') ? (db.prepare('SELECT text FROM notes ORDER BY id').all() as { text: string }[]).map((r) => r.text) : [];
    return { tasks, tables, notes };
  } finally {
    db.close();
  }
}
