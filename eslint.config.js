// Lint: typescript-eslint recommended rules, no import cycles, and the import boundaries of
// docs/architecture.md ("Boundaries"). Dependencies point one way: runtime stands alone; core imports
// no feature; features use each other only through their public surface; the composition root wires
// them; runner/ (the drivers) knows no feature; cli, action and web reach the control plane only over
// HTTP (contract files). Every folder under src/ must be classified below, or this file throws.
import { readdirSync } from 'node:fs';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import importX from 'eslint-plugin-import-x';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';

const root = import.meta.dirname;
const entries = (dir) => readdirSync(`${root}/${dir}`, { withFileTypes: true });

// The layers below the features, bottom first.
const layers = ['runtime', 'core', 'artifacts'];
const features = [
  'identity',
  'projects',
  'releases',
  'secrets',
  'ingress',
  'canary',
  'recovery',
  'ops',
  'audit',
  'github',
  'nodes',
  'backups',
  'console',
  'previews',
];
// Files at the top of src/: the composition root, the control plane's entry and the @svc-dev/svc/operations
// package entry. They may import anything in src/ and runner/; nothing in src/ imports them.
const compositionRoot = ['platform.ts', 'platform-main.ts', 'operations.ts'];

for (const entry of entries('src')) {
  const known = entry.isDirectory() ? [...layers, ...features].includes(entry.name) : compositionRoot.includes(entry.name);
  if (!known) throw new Error(`eslint.config.js: src/${entry.name} is in no boundary zone; add it to layers, features or compositionRoot.`);
}

// How another feature may import a feature: its index.ts (exported functions) and contract.ts (HTTP
// schemas), plus these entries, each with the reason it is not reached through index.ts.
const publicEntries = (f) => ['./index.ts', './contract.ts', ...(extraEntries[f] ?? [])];
const extraEntries = {
  // Recovery's folder root is the journal library exported by @svc-dev/svc/operations; the control-plane
  // feature's surface is platform/index.ts.
  recovery: ['./platform/index.ts'],
  // appendAudit is the write every feature makes; audit's index also exports its routes, which import
  // identity and projects (both write audit), so through the index would be an import cycle.
  audit: ['./append-audit.ts'],
  // Pure host-name rules projects checks claimed domains with; ingress's index builds the ingress,
  // which reads projects, so through the index would be an import cycle.
  ingress: ['./host-matcher.ts', './ip-literal.ts', './platform-hosts.ts'],
};

const contracts = features.map((f) => `./${f}/contract.ts`);
const tools = ['./cli', './action', './web'];
const runnerDirs = entries('runner')
  .filter((e) => e.isDirectory())
  .map((e) => `./runner/${e.name}`);
const runnerFiles = entries('runner')
  .filter((e) => e.isFile() && e.name.endsWith('.ts'))
  .map((e) => `./runner/${e.name}`);

const zones = [
  // The runtime is the library apps embed: nothing from the control plane, the drivers or the tools.
  // Except two pure modules that import nothing: the one retry policy (shared with the browser runtime
  // client) and the byte formatter (the bucket inventory page).
  {
    target: './src/runtime',
    from: './src',
    except: ['./runtime', './core/retry-policy.ts', './core/format-bytes.ts'],
    message: 'src/runtime stands alone: it imports nothing else from svc (but src/core/retry-policy.ts and format-bytes.ts).',
  },
  { target: './src/runtime', from: ['./runner', ...tools], message: 'src/runtime stands alone: it imports nothing else from svc.' },
  // core is shared plumbing: no feature, no driver, no tool.
  { target: './src/core', from: './src', except: ['./core'], message: 'src/core imports no feature (nor artifacts, runtime or the composition root).' },
  { target: './src/core', from: ['./runner', ...tools], message: 'src/core imports no driver and no tool.' },
  // artifacts is shared by CLI, Action, bridge and server: only core below it.
  { target: './src/artifacts', from: './src', except: ['./core', './artifacts'], message: 'src/artifacts may only import src/core.' },
  { target: './src/artifacts', from: ['./runner', ...tools], message: 'src/artifacts may only import src/core.' },
  // The point-in-time recovery library (src/recovery without platform/) is exported by @svc-dev/svc/operations.
  {
    target: './src/recovery/*.ts',
    from: `${root}/src/**`,
    except: [`${root}/src/core/**`, `${root}/src/recovery/*.ts`],
    message: 'the recovery library (src/recovery/*.ts) imports only src/core; the control-plane side is src/recovery/platform.',
  },
  // The svc-ingress process (the data plane) must not load the control plane.
  {
    target: './src/ingress/edge',
    from: './src',
    except: ['./core', './ingress'],
    message: 'src/ingress/edge (the svc-ingress process) imports only src/core and src/ingress.',
  },
  // Features use each other through the public surface (DESIGN: exported functions, never tables).
  ...features.map((f) => ({
    target: features.filter((g) => g !== f).map((g) => `./src/${g}`),
    from: `./src/${f}`,
    except: publicEntries(f),
    message: `other features reach src/${f} only through ${publicEntries(f)
      .map((p) => p.slice(2))
      .join(', ')} (see eslint.config.js).`,
  })),
  // Nothing in src/ imports the composition root or the package entries (they import everything).
  {
    target: [...layers, ...features].map((d) => `./src/${d}`),
    from: compositionRoot.map((f) => `./src/${f}`),
    message:
      'the composition root (platform.ts, platform-main.ts) and @svc-dev/svc/operations (operations.ts) import everything; nothing in src/ imports them.',
  },
  // src/ never imports the tools that call it.
  { target: './src', from: tools, message: 'src/ never imports cli, action or web.' },
  // Features know apps only through the ReleaseDriver interface: no feature folder starts a process, runs a
  // job (snapshot, restore, migrate) or touches a release directory itself; the composition root builds
  // the drivers and hands them out. Besides the interface a feature may import only pure modules:
  // runner-settings.ts (SVC_* settings read from the env, no I/O) and jobs/choose-cutover.ts (a decision
  // over data). core, artifacts and runtime import no runner/ module at all (zones above).
  ...features.map((f) => ({
    target: `./src/${f}`,
    from: './runner',
    except: ['./release-driver.ts', './jobs/choose-cutover.ts', './runner-settings.ts'],
    message: `src/${f} reaches runner/ only through runner/release-driver.ts (and pure modules); the composition root builds the drivers. See runner/README.md.`,
  })),
  // Drivers (runner/) sit below the release pipeline: from src/ only core, artifacts and the node
  // agent's HTTP contract with the control plane.
  {
    target: './runner',
    from: './src',
    except: ['./core', './artifacts', './nodes/contract.ts'],
    message: 'runner/ (the drivers) imports from src/ only core, artifacts and src/nodes/contract.ts; the pipeline calls the drivers, not the other way.',
  },
  { target: './runner', from: tools, message: 'runner/ never imports cli, action or web.' },
  // Inside runner/: the interface knows no driver; the one-off jobs run under every driver, so they know
  // none; the node agent is a program that only its entry (runner-main.ts) starts.
  { target: './runner/release-driver.ts', from: runnerDirs, message: 'runner/release-driver.ts (the interface) imports no driver folder.' },
  {
    target: './runner/jobs',
    from: './runner',
    except: ['./jobs', './release-driver.ts'],
    message: 'runner/jobs runs under every driver: it imports from runner/ only release-driver.ts.',
  },
  {
    target: [...runnerDirs.filter((d) => d !== './runner/agent'), ...runnerFiles.filter((f) => f !== './runner/runner-main.ts'), './src'],
    from: './runner/agent',
    message: 'runner/agent is the svc-runner program: only runner/runner-main.ts starts it.',
  },
  // The CLI and the Action talk to the control plane over HTTP: core, artifacts and contract files.
  ...['./cli', './action/src'].flatMap((target) => [
    {
      target,
      from: './src',
      except: ['./core', './artifacts', ...contracts],
      message: `${target} imports from src/ only core, artifacts and features' contract.ts (HTTP).`,
    },
    { target, from: ['./runner', ...tools.filter((t) => !target.startsWith(t))], message: `${target} imports no driver and no other tool.` },
  ]),
  // The console is a browser app: only contract files (HTTP schemas) from src/, and the byte and usage
  // wording (pure, importing nothing) so sizes and forecasts read the same in the console and the CLI.
  {
    target: './web',
    from: './src',
    except: [...contracts, './core/format-bytes.ts', './core/usage-text.ts'],
    message: 'web/ imports from src/ only features\u2019 contract.ts (HTTP schemas), src/core/format-bytes.ts and src/core/usage-text.ts.',
  },
  { target: './web', from: ['./runner', './cli', './action'], message: 'web/ imports no driver and no other tool.' },
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
      // Which imported files import-x parses (no-cycle follows their imports).
      'import-x/extensions': ['.ts', '.tsx', '.js', '.mjs'],
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
    },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones, basePath: root }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': 'error',
      'no-console': 'off',
    },
  },
  {
    // Value-import cycles; `npm run lint:cycles` (madge) also counts type-only imports.
    files: ['src/**/*.ts', 'runner/**/*.ts', 'cli/**/*.ts', 'action/src/**/*.ts', 'web/src/**/*.{ts,tsx}'],
    rules: { 'import-x/no-cycle': 'error' },
  },
  {
    files: ['**/*.js', '**/*.mjs'],
    rules: { '@typescript-eslint/consistent-type-imports': 'off' },
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly' } },
  },
);
