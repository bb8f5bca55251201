// The docs cannot drift from the code: every SVC_* code they name is in the registry, every exit
// status they pair with a code is the one the programs use, every SVC_* setting they name is read
// by the code, the platform settings table is generated from its schema, and the svc.deploy.json
// fields table matches that schema's fields and defaults. The readers are tested on drifting samples.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { deployConfigSchema, parseDeployConfig } from '../../src/artifacts/deploy-config.js';
import { errorCodes } from '../../src/core/error-codes/index.js';
import { SvcError, type ErrorCode } from '../../src/core/errors.js';
import { documentedExitStatus, platformStartExitStatus, runnerExitStatus } from '../../src/core/exit-status.js';
import { runtimeCodes } from '../../src/runtime/errors.js';
import { envNames } from '../../src/core/config.js';
import { documentedDefault, withPlatformSettings } from '../../src/core/settings-docs.js';
import { readRunnerNodeSettings, runnerSettingDocs } from '../../runner/runner-node-settings.js';
import {
  defaultStatements,
  exitStatements,
  nameMentions,
  sameDefault,
  settingNames,
  statedValue,
  type DefaultStatement,
  type ExitStatement,
  type NameMention,
} from './doc-statements.js';
import { settingDefaults } from './setting-defaults.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const self = relative(root, fileURLToPath(import.meta.url));
const skipped = new Set(['node_modules', 'dist', '.git', 'test-results', 'coverage']);
const codeFolders = ['src', 'runner', 'cli', 'action/src', 'web/src', 'test', 'fixtures', 'scripts', 'bin'];
const codeExtensions = new Set(['.ts', '.tsx', '.js', '.mjs', '.cjs', '.sh']);

function files(path: string, keep: (name: string) => boolean): string[] {
  const full = join(root, path);
  const stat = statSync(full, { throwIfNoEntry: false });
  if (!stat) return [];
  if (stat.isFile()) return keep(path) ? [path] : [];
  return readdirSync(full, { withFileTypes: true }).flatMap((entry) =>
    skipped.has(entry.name) ? [] : entry.isDirectory() || entry.isFile() ? files(join(path, entry.name), keep) : [],
  );
}

/** The prose a user or contributor reads: docs/, the root README and CONTRIBUTING, and every folder README. */
const docFiles = [
  ...files('docs', (p) => p.endsWith('.md')),
  'README.md',
  'CONTRIBUTING.md',
  ...codeFolders.flatMap((folder) => files(folder, (p) => p.endsWith('README.md'))),
].filter((p) => statSync(join(root, p), { throwIfNoEntry: false }));

/** Settings in the code: `read` by the product (src, runner, cli, action), `used` anywhere (tests and scripts too). */
function settingsInCode(): { read: Set<string>; used: Set<string> } {
  const read = new Set<string>();
  const used = new Set<string>();
  const product = ['src', 'runner', 'cli', 'action/src', 'web/src'];
  for (const folder of codeFolders) {
    for (const path of files(folder, (p) => codeExtensions.has(extname(p)) && !p.includes('error-codes') && p !== self)) {
      const names = settingNames(readFileSync(join(root, path), 'utf8'));
      names.used.forEach((n) => used.add(n));
      if (product.includes(folder)) names.read.forEach((n) => read.add(n));
    }
  }
  return { read, used };
}

const codes = new Set(Object.keys(errorCodes));
const isCode = (name: string): name is ErrorCode => codes.has(name);
/** The app runtime's own codes (src/runtime/errors.ts: it imports nothing from src/core); they have no exit status. */
const appRuntimeCodes = new Set(Object.keys(runtimeCodes));

/** What is wrong with one mention (undefined: it names a code or a setting, or a family of them). */
function unknownName(mention: NameMention, settings: ReadonlySet<string>): string | undefined {
  if (mention.family) {
    const prefix = mention.name;
    return [...codes, ...appRuntimeCodes, ...settings].some((n) => n.startsWith(prefix)) ? undefined : `${prefix}* matches no code or setting`;
  }
  return isCode(mention.name) || appRuntimeCodes.has(mention.name) || settings.has(mention.name)
    ? undefined
    : `${mention.name} is neither a registered code nor a setting the code uses`;
}

/** What is wrong with one exit statement, checked against the status the registry documents for the code. */
function wrongExit(statement: ExitStatement): string | undefined {
  if (statement.family) {
    const members = [...codes].filter((c) => c.startsWith(statement.name)) as ErrorCode[];
    if (members.length === 0) return `${statement.name}* matches no code`;
    const off = members.filter((c) => documentedExitStatus(c).status !== statement.exit);
    return off.length
      ? `${statement.name}* (exit ${statement.exit}) but ${off.map((c) => `${c} exits ${documentedExitStatus(c).status}`).join(', ')}`
      : undefined;
  }
  if (!isCode(statement.name)) return `${statement.name} is not a registered code`;
  const error = new SvcError(statement.name);
  const actual =
    statement.program === 'svc-platform'
      ? platformStartExitStatus(error)
      : statement.program === 'svc-runner'
        ? runnerExitStatus(error)
        : documentedExitStatus(statement.name).status;
  const by = statement.program ? `${statement.program} exits` : 'it exits';
  return actual === statement.exit ? undefined : `${statement.name} (exit ${statement.exit}) but ${by} ${actual}`;
}

describe('doc readers', () => {
  it('find codes, settings and families, not the bare prefix', () => {
    const text = 'Set `SVC_LISTEN`; fails with `SVC_USAGE`.\nAny `SVC_ARTIFACT_*` code, `SVC_OPS_…`, `SVC_*` and `SVC_` are reserved.';
    expect(nameMentions(text)).toEqual([
      { name: 'SVC_LISTEN', family: false, line: 1 },
      { name: 'SVC_USAGE', family: false, line: 1 },
      { name: 'SVC_ARTIFACT_', family: true, line: 2 },
      { name: 'SVC_OPS_', family: true, line: 2 },
    ]);
  });

  it('read exit statements in prose (also across a line break), reversed, and in exit tables', () => {
    const text = [
      'A missing file is `SVC_NOT_FOUND` (exit 66); a hostile one fails with its `SVC_ARTIFACT_*` code (exit 65).',
      'The token is refused (`SVC_TOKEN_LIFETIME_EXCEEDED`,',
      '  exit 77, with the latest expiry).',
      '',
      'The command exits 75 with `SVC_CLI_UPLOAD_OUTCOME_UNKNOWN`.',
      '',
      '| Exit | Meaning | Examples |',
      '| --- | --- | --- |',
      '| 65 | bad input | `SVC_CONFIG_*`, `SVC_VALIDATION` |',
      '| from the code | anything | `SVC_INTERNAL` |',
      '',
      '```',
      '`SVC_USAGE` (exit 9)',
      '```',
    ].join('\n');
    expect(exitStatements(text)).toEqual([
      { name: 'SVC_NOT_FOUND', family: false, exit: 66, line: 1 },
      { name: 'SVC_ARTIFACT_', family: true, exit: 65, line: 1 },
      { name: 'SVC_TOKEN_LIFETIME_EXCEEDED', family: false, exit: 77, line: 2 },
      { name: 'SVC_CLI_UPLOAD_OUTCOME_UNKNOWN', family: false, exit: 75, line: 5 },
      { name: 'SVC_CONFIG_', family: true, exit: 65, line: 9 },
      { name: 'SVC_VALIDATION', family: false, exit: 65, line: 9 },
    ]);
  });

  it('report a drifting sample: an unknown code, a wrong exit, a family with a member that exits otherwise', () => {
    const settings = new Set(['SVC_LISTEN']);
    const sample = 'Stops with `SVC_NO_SUCH_CODE` or `SVC_USAGE` (exit 65); `SVC_ARTIFACT_*` codes (exit 65). Set `SVC_LISTNE`.';
    const names = nameMentions(sample)
      .map((m) => unknownName(m, settings))
      .filter(Boolean);
    expect(names).toEqual([
      'SVC_NO_SUCH_CODE is neither a registered code nor a setting the code uses',
      'SVC_LISTNE is neither a registered code nor a setting the code uses',
    ]);
    const exits = exitStatements(sample).map(wrongExit);
    expect(exits[0]).toBe('SVC_USAGE (exit 65) but it exits 2');
    const programs = exitStatements('Stops with `SVC_RUNNER_CONFIG` (svc-platform exit 2); `SVC_OPS_CONFIG` (svc-runner exit 2).');
    expect(programs.map((s) => s.program)).toEqual(['svc-platform', 'svc-runner']);
    expect(programs.map(wrongExit)).toEqual([undefined, 'SVC_OPS_CONFIG (exit 2) but svc-runner exits 64']);
    expect(exits[1]).toMatch(/^SVC_ARTIFACT_\* \(exit 65\) but SVC_ARTIFACT_TARGET_EXISTS exits 73$/);
  });
});

const platformKeys = new Map(Object.entries(envNames).map(([key, name]) => [name as string, key as keyof typeof envNames]));

/** What is wrong with one stated default (undefined: it is the code's, or the setting is listed as unchecked with a reason). */
function wrongDefault(statement: DefaultStatement, known: Record<string, { read: () => unknown } | { unchecked: string }>): string | undefined {
  const platformKey = platformKeys.get(statement.name);
  if (platformKey) {
    const generated = documentedDefault(platformKey);
    return generated.startsWith(statement.value) ? undefined : `${statement.name} default ${statement.value} but the schema's is ${generated}`;
  }
  const entry = known[statement.name];
  if (!entry) return `${statement.name} has a documented default (${statement.value}) but no reader in test/repo/setting-defaults.ts`;
  if ('unchecked' in entry) return undefined;
  const actual = entry.read();
  const stated = statedValue(statement.name, statement.value);
  return sameDefault(actual, stated) ? undefined : `${statement.name} default ${statement.value} but the code's is ${JSON.stringify(actual)}`;
}

describe('settings in code', () => {
  it('reads env reads, schema keys, literals and shell expansions, not messages or comments', () => {
    const source = [
      "const a = env.SVC_ONE ?? env?.SVC_TWO ?? env['SVC_THREE'];",
      '  SVC_FOUR: z.coerce.number().default(1),',
      '  SVC_FIVE: dir,',
      "run(['SVC_SIX=1', \"SVC_SEVEN\"]); sh('echo $SVC_EIGHT ${SVC_NINE}');",
      "throw new Error('set SVC_MESSAGE to a number');",
      '// SVC_COMMENT is explained here',
    ].join('\n');
    const names = settingNames(source);
    expect([...names.read].sort()).toEqual(['SVC_FIVE', 'SVC_FOUR', 'SVC_ONE', 'SVC_THREE', 'SVC_TWO']);
    expect([...names.used].sort()).toEqual(['SVC_EIGHT', 'SVC_FIVE', 'SVC_FOUR', 'SVC_NINE', 'SVC_ONE', 'SVC_SEVEN', 'SVC_SIX', 'SVC_THREE', 'SVC_TWO']);
  });
});

describe('doc defaults', () => {
  it('read defaults in prose, in a setting table and in a meaning column', () => {
    const text = [
      'Requests are held (`SVC_HOLD_REQUESTS_MS`, default 30 s) and the lock waits `SVC_DEPLOY_LOCK_WAIT_MS` (default 0).',
      '',
      '| Variable | Default | Meaning |',
      '| --- | --- | --- |',
      '| `SVC_RUNNER` | `process` | the runner |',
      '| `SVC_A` / `SVC_B` | `1` | two at once: not read |',
      '',
      '| Variable | Meaning |',
      '| --- | --- |',
      '| `SVC_OPS_INTERVAL_MS` | Poll interval (default 60000), or `false`. |',
    ].join('\n');
    expect(defaultStatements(text)).toEqual([
      { name: 'SVC_HOLD_REQUESTS_MS', value: '30 s', line: 1 },
      { name: 'SVC_DEPLOY_LOCK_WAIT_MS', value: '0', line: 1 },
      { name: 'SVC_RUNNER', value: '`process`', line: 5 },
      { name: 'SVC_OPS_INTERVAL_MS', value: '60000', line: 10 },
    ]);
    expect(statedValue('SVC_HOLD_REQUESTS_MS', '30 s')).toBe(30_000);
    expect(statedValue('SVC_GITHUB_BUILD_TIMEOUT_SECONDS', '1 hour')).toBe(3600);
    expect(statedValue('SVC_SANDBOX_MEMORY', '512 MiB')).toBe(512 * 1024 * 1024);
    expect(statedValue('SVC_RUNNER', '`process`')).toBe('process');
  });

  it('report a drifting default, an unknown one, and accept a reasoned exception', () => {
    const known = { SVC_HOLD_REQUESTS_MS: { read: () => 30_000 }, SVC_X_DIR: { unchecked: 'a path' } };
    const sample =
      '`SVC_HOLD_REQUESTS_MS` (default 20 s); `SVC_NEW_MS` (default 5); `SVC_X_DIR` (default 9); `SVC_TOKEN_TTL_DAYS` (default 30); `SVC_UPLOAD_STALLED` after SVC_UPLOAD_IDLE_TIMEOUT_MS, default 30 s.';
    expect(defaultStatements(sample).map((s) => wrongDefault(s, known))).toEqual([
      "SVC_HOLD_REQUESTS_MS default 20 s but the code's is 30000",
      'SVC_NEW_MS has a documented default (5) but no reader in test/repo/setting-defaults.ts',
      undefined,
      "SVC_TOKEN_TTL_DAYS default 30 but the schema's is `90`",
    ]);
  });
});

describe('docs against the code', () => {
  it('reads some docs (the file list is not empty)', () => {
    expect(docFiles).toContain('docs/operations.md');
    expect(docFiles).toContain('src/core/README.md');
  });

  it('every SVC_* name in the docs is a registered code or a setting the code reads', () => {
    const settings = settingsInCode().used;
    const problems = docFiles.flatMap((path) =>
      nameMentions(readFileSync(join(root, path), 'utf8')).flatMap((m) => {
        const problem = unknownName(m, settings);
        return problem ? [`${path}:${m.line}: ${problem}`] : [];
      }),
    );
    expect(problems).toEqual([]);
  });

  it('every setting the product reads is documented (docs/, a README or CONTRIBUTING)', () => {
    const prose = docFiles.map((path) => readFileSync(join(root, path), 'utf8')).join('\n');
    const mentioned = new Set(nameMentions(prose).map((m) => m.name));
    const undocumented = [...settingsInCode().read].filter((name) => !isCode(name) && !appRuntimeCodes.has(name) && !mentioned.has(name)).sort();
    expect(undocumented).toEqual([]);
  });

  it('every exit status the docs pair with a code is the one the registry gives', () => {
    const statements = docFiles.flatMap((path) => exitStatements(readFileSync(join(root, path), 'utf8')).map((s) => ({ path, s })));
    // The convention is in use: the check reads real statements, not nothing.
    expect(statements.length).toBeGreaterThan(20);
    const problems = statements.flatMap(({ path, s }) => {
      const problem = wrongExit(s);
      return problem ? [`${path}:${s.line}: ${problem}`] : [];
    });
    expect(problems).toEqual([]);
  });

  it('every default the docs state for a setting is the one its reader applies', () => {
    const statements = docFiles.flatMap((path) => defaultStatements(readFileSync(join(root, path), 'utf8')).map((s) => ({ path, s })));
    expect(statements.length).toBeGreaterThan(40);
    const problems = statements.flatMap(({ path, s }) => {
      const problem = wrongDefault(s, settingDefaults);
      return problem ? [`${path}:${s.line}: ${problem}`] : [];
    });
    expect(problems).toEqual([]);
  });

  it('svc-runner --help states the defaults its schema applies', () => {
    const parsed = readRunnerNodeSettings({}) as Record<string, unknown>;
    const checked = runnerSettingDocs.filter((s) => !s.default.startsWith('(') && s.name in parsed);
    expect(checked.length).toBeGreaterThan(8);
    for (const s of checked) expect(sameDefault(parsed[s.name], statedValue(s.name, s.default)), s.name).toBe(true);
  });

  it('the platform settings table in docs/configuration.md is generated from the schema (npm run docs:settings)', () => {
    const onDisk = readFileSync(join(root, 'docs', 'configuration.md'), 'utf8');
    expect(onDisk).toBe(withPlatformSettings(onDisk));
  });
});

/** Field paths of svc.deploy.json: always-present sections field by field, optional sections as one field. */
function deployConfigFields(schema: z.ZodType, prefix = ''): string[] {
  let inner = schema;
  while (inner instanceof z.ZodPipe) inner = inner.def.in as z.ZodType;
  if (!(inner instanceof z.ZodObject)) return [prefix];
  return Object.entries(inner.shape).flatMap(([key, value]) => {
    const path = prefix ? `${prefix}.${key}` : key;
    const field = value as z.ZodType;
    if (field instanceof z.ZodPrefault || field instanceof z.ZodDefault) return deployConfigFields(field.def.innerType as z.ZodType, path);
    return [path];
  });
}

function fieldsTable(markdown: string): Map<string, { required: string; default: string }> {
  const at = markdown.indexOf('| Field | Type | Required | Default |');
  expect(at, 'docs/configuration.md has the fields table').toBeGreaterThanOrEqual(0);
  const rows = new Map<string, { required: string; default: string }>();
  for (const line of markdown.slice(at).split('\n').slice(2)) {
    if (!line.startsWith('|')) break;
    const [field, , required, defaultCell] = line
      .replace(/^\||\|$/g, '')
      .split('|')
      .map((c) => c.trim());
    rows.set(field!.replace(/`/g, ''), { required: required!, default: defaultCell! });
  }
  return rows;
}

describe('svc.deploy.json docs against its schema', () => {
  const markdown = readFileSync(join(root, 'docs', 'configuration.md'), 'utf8');
  const minimal = { version: 1, entry: 'dist/server.js' };
  const defaults = parseDeployConfig(minimal) as unknown as Record<string, unknown>;
  const valueAt = (path: string): unknown => path.split('.').reduce<unknown>((v, k) => (v as Record<string, unknown> | undefined)?.[k], defaults);

  it('the fields table lists exactly the schema’s fields', () => {
    expect([...fieldsTable(markdown).keys()].sort()).toEqual(deployConfigFields(deployConfigSchema).sort());
  });

  it('each documented default is the schema’s, and only version and entry are required', () => {
    for (const [field, row] of fieldsTable(markdown)) {
      const required = field === 'version' || field === 'entry';
      expect(row.required, field).toBe(required ? 'yes' : 'no');
      const literal = /^`(.+)`$/.exec(row.default);
      if (required || !literal) {
        // A field without a literal default is absent from the parsed configuration (canary: none).
        if (!required) expect(valueAt(field), field).toBeUndefined();
        continue;
      }
      expect(valueAt(field), field).toEqual(JSON.parse(literal[1]!));
    }
  });

  it('the "every default written out" example parses to the same configuration as the smallest file', () => {
    const complete = [...markdown.matchAll(/```json\n([\s\S]*?)```/g)].map((m) => m[1]!).find((text) => text.includes('"health"'));
    expect(complete, 'the complete example').toBeDefined();
    expect(parseDeployConfig(JSON.parse(complete!))).toEqual(parseDeployConfig(minimal));
  });
});
