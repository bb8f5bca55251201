// The start-up hold of the young generation: skipped when the operator set young-generation flags, and,
// in a real node process, the young generation stays at its initial size while held and grows again
// under the same allocation once released.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { holdYoungGeneration, mayHoldYoungGeneration } from '../../src/core/startup-heap.js';
import { repoRoot } from '../support/repo-root.js';

const run = promisify(execFile);

// Allocates objects that survive young-generation collections (as start-up does) and prints the young
// generation's committed size in MiB after each phase.
const probe = `
import { getHeapSpaceStatistics } from 'node:v8';
import { holdYoungGeneration } from ${JSON.stringify(join(repoRoot, 'src/core/startup-heap.ts'))};
const young = () => getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').physical_space_size / 2 ** 20;
const survivors = () => { let keep = []; for (let i = 0; i < 3e6; i++) { keep.push({ i, s: 'x' + i }); if (keep.length > 2e5) keep = []; } };
const release = holdYoungGeneration();
survivors();
const held = young();
release();
survivors();
console.log(JSON.stringify({ held, released: young() }));
`;

describe('holdYoungGeneration', () => {
  it('leaves the young generation alone when the operator set a semi-space flag', () => {
    expect(mayHoldYoungGeneration([], '')).toBe(true);
    expect(mayHoldYoungGeneration(['--enable-source-maps'], '--max-old-space-size=512')).toBe(true);
    expect(mayHoldYoungGeneration(['--max-semi-space-size=8'], '')).toBe(false);
    expect(mayHoldYoungGeneration([], '--semi-space-growth-factor=4')).toBe(false);
    expect(mayHoldYoungGeneration([], '--max_semi_space_size=32')).toBe(false);
    // With the operator's flag the hold is a no-op: released twice, nothing is set or thrown.
    const release = holdYoungGeneration(['--max-semi-space-size=8'], '');
    release();
    release();
  });

  it('keeps the young generation at its initial size while held; released, it grows again', async () => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', probe], {
      cwd: repoRoot,
      env: { ...process.env, NODE_OPTIONS: '' },
    });
    const sizes = JSON.parse(stdout) as { held: number; released: number };
    expect(sizes.held).toBeLessThanOrEqual(4);
    expect(sizes.released).toBeGreaterThan(sizes.held * 2);
  }, 60_000);
});
