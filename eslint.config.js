// Lint: typescript-eslint recommended rules plus the import boundaries of DESIGN.md.
// Dependencies point one way: runtime stands alone; core imports no feature; cli/action/web
// reach the control plane only over HTTP (they may use core, artifacts and contract files).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

const features = ['identity', 'projects', 'releases', 'secrets', 'ingress', 'canary', 'recovery', 'ops', 'audit', 'github', 'nodes', 'backups', 'console'];
const outside = ['./cli', './action', './web', './runner'];

const zones = [
  // The runtime is the library apps embed: nothing from the control plane or tools.
  { target: './src/runtime', from: ['./src/core', ...features.map((f) => `./src/${f}`), './src/artifacts', './src/platform.ts', ...outside], message: 'src/runtime stands alone (DESIGN.md).' },
  // core is shared plumbing and imports no feature.
  { target: './src/core', from: [...features.map((f) => `./src/${f}`), './src/artifacts', './src/runtime', './src/platform.ts', ...outside], message: 'src/core imports no feature (DESIGN.md).' },
  // artifacts is shared by CLI, Action, bridge and server: it may only use core.
  { target: './src/artifacts', from: [...features.map((f) => `./src/${f}`), './src/runtime', './src/platform.ts', ...outside], message: 'src/artifacts may only import src/core.' },
  // Features never import the tools that call them.
  { target: './src', from: ['./cli', './action', './web'], message: 'src/ never imports cli, action or web.' },
  // Drivers (runner/) sit below the release pipeline: they know no control-plane feature, except the
  // node agent's HTTP contract with the control plane.
  ...features.map((f) => ({ target: './runner', from: `./src/${f}`, except: ['./contract.ts'], message: `runner/ (the drivers) never imports src/${f}; the pipeline calls the drivers, not the other way.` })),
  { target: './runner', from: './src/platform.ts', message: 'runner/ never imports the composition root.' },
  // Features know apps only through the ReleaseDriver interface: no feature folder starts a process, runs a
  // job (snapshot, restore, migrate) or touches a release directory itself; the composition root
  // (src/platform.ts, src/platform-main.ts) builds the drivers and hands them out. Besides the interface
  // a feature may import only pure modules: runner-settings.ts (SVC_* settings read from the env, no I/O)
  // and jobs/choose-cutover.ts (a decision over data). src/operations.ts is the svc/operations package
  // entry (it re-exports the provider for runner nodes), not a feature. core, artifacts and runtime import
  // no runner/ module at all (zones above).
  ...features.map((f) => ({
    target: `./src/${f}`,
    from: './runner',
    except: ['./release-driver.ts', './jobs/choose-cutover.ts', './runner-settings.ts'],
    message: `src/${f} reaches runner/ only through runner/release-driver.ts (and pure modules); the composition root builds the drivers. See runner/README.md.`,
  })),
  // The CLI and the Action talk to the control plane over HTTP: only contract files of features.
  ...['./cli', './action/src'].flatMap((target) =>
    features.map((f) => ({ target, from: `./src/${f}`, except: ['./contract.ts'], message: `${target} reaches src/${f} only through its contract.ts (HTTP).` })),
  ),
];

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'action/dist/', 'web/dist/', 'coverage/', 'fixtures/apps/**', 'fixtures/hostile/**', '**/*.d.ts'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.{ts,tsx,js,mjs}'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    rules: { '@typescript-eslint/consistent-type-imports': 'off' },
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly' } },
  },
);
