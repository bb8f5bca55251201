import { defineConfig } from 'vitest/config';

/**
 * Suites that put the machine under steady load and assert on how svc behaves under it: they run
 * after the rest, one at a time (vitest.load.config.ts), so the load they measure is their own.
 */
export const LOAD_SUITES = ['test/e2e/zero-drop-load.test.ts', 'test/releases/driver-contract.test.ts'];

/** What every run shares. */
export const shared = {
  testTimeout: 30_000,
  hookTimeout: 60_000,
  pool: 'forks',
  globalSetup: ['test/support/global-setup.ts'],
} as const;

export default defineConfig({
  test: {
    ...shared,
    globalSetup: [...shared.globalSetup],
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    exclude: ['node_modules/**', 'dist/**', 'test/bench/**', ...LOAD_SUITES],
    // Two cores: keep worker count small so process- and timing-based tests stay stable.
    maxWorkers: 2,
  },
});
