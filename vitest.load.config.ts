import { defineConfig } from 'vitest/config';
import { LOAD_SUITES, shared } from './vitest.config.js';

/** The load suites alone, one file at a time (`npm test` runs them after the rest). */
export default defineConfig({
  test: { ...shared, globalSetup: [...shared.globalSetup], include: LOAD_SUITES, maxWorkers: 1, fileParallelism: false },
});
