// The console evaluates the src/*/contract.ts files on zod/mini through web/src/lib/zod-on-mini.ts
// (Vite aliases `zod` to it). Here every contract is bundled the same way (esbuild, `zod` → that module)
// and each exported schema is compared with the server's classic-zod schema as JSON Schema, so a
// method the module lacks, or one that validates differently, fails here rather than in a browser.
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { metricsResponseSchema } from '../../src/ingress/contract.js';
import { z as zodOnMini } from '../../web/src/lib/zod-on-mini.js';
import { repoRoot } from '../support/repo-root.js';

type Exports = Record<string, unknown>;
const isSchema = (value: unknown): value is z.ZodType => typeof value === 'object' && value !== null && '_zod' in value;

// Descriptions are API documentation; the browser module keeps none (see zod-on-mini.ts). Without
// them the JSON Schema writer may spell "string or null" as `type: [...]` instead of `anyOf`: one form.
function withoutDescriptions(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutDescriptions);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value).filter(([key]) => key !== 'description');
  const object = Object.fromEntries(entries.map(([key, v]) => [key, withoutDescriptions(v)])) as Record<string, unknown>;
  const anyOf = object.anyOf as Record<string, unknown>[] | undefined;
  if (Object.keys(object).length === 1 && anyOf?.every((o) => Object.keys(o).length === 1 && typeof o.type === 'string'))
    return { type: anyOf.map((o) => o.type) };
  return object;
}

let dir: string;
let contracts: string[];
let browser: { modules: Record<string, Exports>; toJSONSchema(schema: unknown, options: object): unknown };
let server: Record<string, Exports>;

beforeAll(async () => {
  const srcDir = join(repoRoot, 'src');
  contracts = [];
  for (const feature of await readdir(srcDir, { withFileTypes: true })) {
    if (!feature.isDirectory()) continue;
    const files = await readdir(join(srcDir, feature.name));
    if (files.includes('contract.ts')) contracts.push(feature.name);
  }
  const entry = [
    ...contracts.map((name) => `export * as ${name} from ${JSON.stringify(join(srcDir, name, 'contract.ts'))};`),
    `export { toJSONSchema } from 'zod/mini';`,
  ].join('\n');
  const shim = join(repoRoot, 'web', 'src', 'lib', 'zod-on-mini.ts');
  const result = await build({
    stdin: { contents: entry, resolveDir: repoRoot, loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'node',
    write: false,
    logLevel: 'silent',
    plugins: [{ name: 'zod-on-mini', setup: (b) => b.onResolve({ filter: /^zod$/ }, () => ({ path: shim })) }],
  });
  dir = await mkdtemp(join(tmpdir(), 'svc-zod-on-mini-'));
  const file = join(dir, 'contracts.mjs');
  await writeFile(file, result.outputFiles[0]!.text);
  const loaded = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
  browser = { modules: loaded as Record<string, Exports>, toJSONSchema: loaded.toJSONSchema as typeof browser.toJSONSchema };
  server = Object.fromEntries(
    await Promise.all(contracts.map(async (name) => [name, (await import(pathToFileURL(join(srcDir, name, 'contract.ts')).href)) as Exports] as const)),
  );
}, 60_000);

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('contracts on zod/mini', () => {
  it('export the same schemas, describing the same JSON as the server’s', () => {
    let compared = 0;
    const options = { unrepresentable: 'any', io: 'input' } as const;
    for (const name of contracts) {
      for (const [key, value] of Object.entries(server[name]!)) {
        if (!isSchema(value)) continue;
        const mini = browser.modules[name]![key];
        expect(isSchema(mini), `${name}.${key} is a schema in the browser too`).toBe(true);
        expect(withoutDescriptions(browser.toJSONSchema(mini, options)), `${name}.${key}`).toEqual(withoutDescriptions(z.toJSONSchema(value, options)));
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(50);
  });

  it('chains checks in order, each call returning a new schema (as classic zod does)', () => {
    const base = zodOnMini.string().trim();
    const bounded = base.min(2).max(4);
    expect(base.safeParse(' a ').success).toBe(true);
    expect(bounded.safeParse(' a ').success).toBe(false);
    expect(bounded.parse(' abc ')).toBe('abc');
    expect(zodOnMini.number().int().nonnegative().optional().safeParse(undefined).success).toBe(true);
    expect(zodOnMini.number().int().nonnegative().safeParse(-1).success).toBe(false);
    expect(zodOnMini.enum(['a', 'b']).default('a').parse(undefined)).toBe('a');
  });

  it('accept and refuse the same values', () => {
    const mini = browser.modules.ingress!.metricsResponseSchema as z.ZodType;
    const point = { t: '2026-03-01T12:00:00.000Z', requests: 3, errors: 1, platform: 1, p50: 2.5, p95: null, bytes: 10 };
    const good = {
      projectId: 'prj_1',
      window: '1h',
      stepSeconds: 60,
      from: point.t,
      to: point.t,
      series: [point],
      totals: { requests: 3, errors: 1, platform: 1, clientErrors: 0, aborted: 0, bytes: 10, errorRate: 0.5, p50: 2.5, p95: 2.5 },
    };
    const bad = [
      { ...good, window: '2h' },
      { ...good, stepSeconds: 0 },
      { ...good, series: [{ ...point, requests: 1.5 }] },
      { ...good, totals: { ...good.totals, errorRate: 2 } },
    ];
    expect(mini.safeParse(good).success).toBe(true);
    expect(metricsResponseSchema.safeParse(good).success).toBe(true);
    for (const value of bad) {
      expect(mini.safeParse(value).success).toBe(false);
      expect(metricsResponseSchema.safeParse(value).success).toBe(false);
    }
    // Transforms and defaults run as on the server.
    const logsQuery = browser.modules.releases!.logsQuerySchema as z.ZodType;
    const serverLogsQuery = server.releases!.logsQuerySchema as z.ZodType;
    for (const query of [{ follow: '1' }, {}, { limit: '20', follow: 'false' }]) expect(logsQuery.parse(query)).toEqual(serverLogsQuery.parse(query));
    expect(logsQuery.safeParse({ limit: '0' }).success).toBe(false);
  });
});
