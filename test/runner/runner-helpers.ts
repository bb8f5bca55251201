// Shared helpers for runner tests: temp roots, a copied test app as a release, polling.
import { cp, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppStartSpec } from '../../runner/app-runner.js';

/** A temp root holding a release directory copied from test/runner/apps. */
export async function makeRoot(): Promise<{ root: string; releaseDir: string }> {
  const root = await mkdtemp(join(tmpdir(), 'svc-runner-'));
  const releaseDir = join(root, 'releases', 'rel_1');
  await cp(join(import.meta.dirname, 'apps'), releaseDir, { recursive: true });
  return { root, releaseDir };
}

/** A start spec for the test app. */
export function appSpec(root: string, releaseDir: string, extra: Partial<AppStartSpec> = {}): AppStartSpec {
  return {
    projectId: 'p',
    releaseId: 'rel_1',
    releaseDir,
    entry: 'server.mjs',
    dataDir: join(root, 'data'),
    databasePath: join(root, 'data', 'app.db'),
    env: {},
    secrets: {},
    ...extra,
  };
}

/** Poll `check` until it returns a truthy value (bounded). */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value) return value as NonNullable<T>;
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
}

export { alive } from '../support/process-alive.js';
