// A sandbox that dies during its own set-up (here: a release directory that does not exist, which
// bubblewrap finds only after it reported the sandbox's pid) is an app that exited — never an unhandled
// pipe error, which would end the control plane with it.
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AppExit } from '../../../runner/app-runner.js';
import { LogStore } from '../../../runner/log-store.js';
import { createSandboxRunner, readSandboxSettings } from '../../../runner/sandbox/sandbox-settings.js';
import { rm } from 'node:fs/promises';
import { commandComponent, requireComponents } from '../../support/require-components.js';
import { appSpec, makeRoot } from '../runner-helpers.js';

const gate = requireComponents('sandbox early exit', [
  commandComponent('bubblewrap', ['bwrap', '--version']),
  commandComponent('slirp4netns', ['slirp4netns', '--version']),
]);
const root0 = process.getuid?.() === 0;

describe.skipIf(gate.skip)('a sandbox that fails its own set-up', () => {
  let root: string;
  let releaseDir: string;
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown): void => void uncaught.push(error);

  beforeAll(() => gate.assertPresent());
  beforeEach(async () => {
    ({ root, releaseDir } = await makeRoot());
    process.on('uncaughtException', onUncaught);
  });
  afterEach(async () => {
    process.off('uncaughtException', onUncaught);
    uncaught.splice(0);
    await rm(root, { recursive: true, force: true });
  });

  for (const network of ['shared', 'isolated'] as const) {
    it(`${network} network: start fails or the app exits non-zero, and no error escapes`, async () => {
      const runner = createSandboxRunner(readSandboxSettings({ SVC_SANDBOX_NETWORK: network }), {
        runsDir: join(root, 'runs'),
        logs: new LogStore({ dir: join(root, 'logs') }),
        ...(root0 ? { uidFor: () => 210_900 } : {}),
      });
      const spec = appSpec(root, releaseDir, { releaseDir: join(root, 'releases', 'missing') });
      for (let attempt = 0; attempt < 5; attempt++) {
        let exit: AppExit | null = null;
        try {
          const app = await runner.start(spec);
          exit = await app.wait();
        } catch (error) {
          expect(error).toMatchObject({ code: 'SVC_SANDBOX_START_FAILED' });
        }
        if (exit) expect(exit.code).not.toBe(0);
      }
      // Late pipe errors surface within a moment of the exit.
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(uncaught).toEqual([]);
    });
  }
});
