import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    exclude: ['node_modules/**', 'dist/**', 'test/bench/**'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Two cores: keep worker count small so process- and timing-based tests stay stable.
    maxWorkers: 2,
    pool: 'forks',
    globalSetup: ['test/support/global-setup.ts'],
  },
});
