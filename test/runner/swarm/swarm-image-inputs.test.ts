// The swarm image's inputs hash over a small package on disk: the same inputs give the same hash;
// a changed dist file, dependency version, node binary, entrypoint or user gives another.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { swarmImageInputsHash, type SwarmImageInputs } from '../../../runner/swarm/swarm-image-inputs.js';

describe('swarmImageInputsHash', () => {
  let dir: string;
  let inputs: SwarmImageInputs;
  const write = async (path: string, text: string) => {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), text);
  };

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'svc-image-inputs-'));
    await write('pkg/package.json', JSON.stringify({ name: 'svc', version: '1.0.0', dependencies: { dep: '^1' }, devDependencies: { tool: '^1' } }));
    await write('pkg/dist/a.js', 'export const a = 1;\n');
    await write('pkg/dist/sub/b.js', 'export const b = 2;\n');
    await write('pkg/node_modules/dep/package.json', JSON.stringify({ name: 'dep', version: '1.2.3' }));
    await write('pkg/node_modules/tool/package.json', JSON.stringify({ name: 'tool', version: '9.0.0' }));
    await write('node', 'pretend node binary');
    inputs = { nodePath: join(dir, 'node'), packageDir: join(dir, 'pkg'), entrypointShim: "import '/x.js';\n", user: '10001:10001' };
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('is stable for the same inputs and changes with each of them', async () => {
    const base = await swarmImageInputsHash(inputs);
    expect(base).toMatch(/^[0-9a-f]{64}$/);
    expect(await swarmImageInputsHash(inputs)).toBe(base);
    expect(await swarmImageInputsHash({ ...inputs, entrypointShim: "import '/y.js';\n" })).not.toBe(base);
    expect(await swarmImageInputsHash({ ...inputs, user: '10002:10002' })).not.toBe(base);

    await write('pkg/node_modules/tool/package.json', JSON.stringify({ name: 'tool', version: '9.9.9' }));
    expect(await swarmImageInputsHash(inputs)).toBe(base); // a dev dependency is not in the image

    const changes: Array<[string, string]> = [
      ['pkg/dist/sub/b.js', 'export const b = 3;\n'],
      ['pkg/node_modules/dep/package.json', JSON.stringify({ name: 'dep', version: '1.2.4' })],
      ['node', 'another node binary'],
      ['pkg/dist/c.js', 'new file\n'],
    ];
    const seen = new Set([base]);
    for (const [path, text] of changes) {
      await write(path, text);
      const next = await swarmImageInputsHash(inputs);
      expect(seen.has(next), path).toBe(false);
      seen.add(next);
    }
  });
});
