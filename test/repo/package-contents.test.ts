// What `npm pack` would publish: everything the bins and the package's exports load (with the
// declarations their types reach), and nothing a user cannot use: no source maps whose sources are
// missing, no declarations outside the exported API, no screenshots, tests or fixtures, no output of
// a deleted source. Reads the built dist/, so run `npm run build` first (`npm test` does).
import { existsSync, readFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packPackage, unbuiltBins } from '../support/pack-package.js';
import { repoRoot } from '../support/repo-root.js';

/** The parts of package.json that say what the package offers. */
interface Manifest {
  bin: Record<string, string>;
  exports: Record<string, string | { types?: string; default?: string }>;
}

/** Folders whose declarations are the exported API as a whole (the `./runtime` exports live here). */
const exportedDeclarationFolders = ['dist/src/runtime/'];

const relative = (path: string) => posix.normalize(path).replace(/^\.\//, '');

/** Relative module specifiers a compiled file loads: static and dynamic imports, re-exports, `new URL(…, import.meta.url)` files. */
function localSpecifiers(text: string): string[] {
  const found: string[] = [];
  for (const m of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)(['"])(\.{1,2}\/[^'"]+)\1/g)) found.push(m[2]!);
  for (const m of text.matchAll(/new URL\(\s*(['"])(\.{1,2}\/[^'"]+\.(?:js|mjs|cjs|json))\1\s*,\s*import\.meta\.url/g)) found.push(m[2]!);
  return found;
}

/** Every file reachable from `entries` by relative imports; a declaration's `./x.js` is `./x.d.ts`. */
function reachable(entries: string[], read: (path: string) => string | null, declarations: boolean): Set<string> {
  const seen = new Set<string>();
  const queue = [...entries];
  while (queue.length) {
    const path = queue.pop()!;
    if (seen.has(path)) continue;
    seen.add(path);
    const text = read(path);
    if (text === null) continue;
    for (const specifier of localSpecifiers(text)) {
      const target = relative(posix.join(posix.dirname(path), specifier));
      queue.push(declarations ? target.replace(/\.js$/, '.d.ts') : target);
    }
  }
  return seen;
}

/** What is wrong with a package of `files` (paths from `npm pack --json`); empty when it is right. */
function packProblems(files: string[], manifest: Manifest, read: (path: string) => string | null, hasSource: (path: string) => boolean): string[] {
  const shipped = new Set(files);
  const problems: string[] = [];
  const exportTargets = Object.values(manifest.exports).flatMap((target) =>
    typeof target === 'string' ? [target] : [target.types, target.default].filter((t): t is string => t !== undefined),
  );
  const bins = Object.values(manifest.bin).map(relative);
  const modules = exportTargets.map(relative).filter((t) => !t.endsWith('.d.ts') && t.endsWith('.js'));
  const types = exportTargets.map(relative).filter((t) => t.endsWith('.d.ts'));

  for (const path of [...bins, ...exportTargets.map(relative)]) if (!shipped.has(path)) problems.push(`${path}: a bin or export target, not in the package`);
  for (const path of reachable([...bins, ...modules], read, false)) {
    if (!shipped.has(path)) problems.push(`${path}: loaded by a bin or an export, not in the package`);
  }
  const typeClosure = reachable(types, read, true);
  for (const path of typeClosure) if (!shipped.has(path)) problems.push(`${path}: referenced by the exported declarations, not in the package`);
  for (const path of files) {
    if (path.endsWith('.d.ts')) {
      if (!exportedDeclarationFolders.some((folder) => path.startsWith(folder)) && !typeClosure.has(path)) {
        problems.push(`${path}: a declaration no exported type reaches`);
      }
    } else if (/\.(?:ts|tsx|mts|cts)$/.test(path)) {
      problems.push(`${path}: TypeScript source (the package ships compiled JS)`);
    }
    if (path.endsWith('.map')) {
      const map = JSON.parse(read(path) ?? '{}') as { sources?: string[] };
      for (const source of map.sources ?? []) {
        const target = relative(posix.join(posix.dirname(path), source));
        if (!shipped.has(target)) problems.push(`${path}: maps to ${target}, which is not in the package`);
      }
    }
    if (/\.js$/.test(path)) {
      const url = /\/\/# sourceMappingURL=(\S+)\s*$/.exec(read(path) ?? '')?.[1];
      if (url && !url.startsWith('data:') && !shipped.has(relative(posix.join(posix.dirname(path), url))))
        problems.push(`${path}: names a source map that is not in the package`);
    }
    if (/(?:^|\/)screenshots\//.test(path) || (/\.(?:png|jpe?g|gif|webp)$/i.test(path) && !path.startsWith('web/dist/')))
      problems.push(`${path}: an image (screenshots stay in the repository)`);
    if (/^(?:test|fixtures|scripts|action|\.ci)\//.test(path) || /(?:^|\/)(?:test|fixtures|__tests__)\//.test(path) || /\.test\.[cm]?js$/.test(path))
      problems.push(`${path}: tests, fixtures or repository tooling`);
    if (path.startsWith('dist/') && /\.(?:js|d\.ts)$/.test(path) && !hasSource(path))
      problems.push(`${path}: built from a source that no longer exists (rebuild dist from scratch)`);
  }
  return problems;
}

/** The source a dist file was compiled from exists (dist/x/y.js or .d.ts ← x/y.ts or .tsx). */
function sourceExists(path: string): boolean {
  // The CLI bundle (scripts/build-cli.ts): one entry and content-named chunks, all built from cli/main.ts and its imports.
  if (path.startsWith('dist/cli-bundle/')) return existsSync(join(repoRoot, 'cli', 'main.ts'));
  const base = path.replace(/^dist\//, '').replace(/(?:\.d\.ts|\.js)$/, '');
  return existsSync(join(repoRoot, `${base}.ts`)) || existsSync(join(repoRoot, `${base}.tsx`));
}

describe('the published package', () => {
  it('finds each kind of wrong content in a made-up package', () => {
    const manifest: Manifest = {
      bin: { tool: 'bin/tool.js' },
      exports: { './lib': { types: './dist/src/lib/index.d.ts', default: './dist/src/lib/index.js' } },
    };
    const texts: Record<string, string> = {
      'bin/tool.js': "import { main } from '../dist/cli/main.js';",
      'dist/cli/main.js': "import './helper.js';\nconst worker = new URL('./worker.js', import.meta.url);",
      'dist/src/lib/index.js': "export * from './inner.js';\n//# sourceMappingURL=index.js.map",
      'dist/cli/main.js.map': JSON.stringify({ sources: ['../../cli/main.ts'] }),
      'dist/src/lib/index.d.ts': "export type { Thing } from '../core/thing.js';",
    };
    const read = (path: string) => texts[path] ?? '';
    const good = [
      'bin/tool.js',
      'dist/cli/main.js',
      'dist/cli/helper.js',
      'dist/cli/worker.js',
      'dist/src/lib/index.js',
      'dist/src/lib/inner.js',
      'dist/src/lib/index.d.ts',
      'dist/src/core/thing.d.ts',
    ];
    const fine: Record<string, string> = { ...texts, 'dist/src/lib/index.js': "export * from './inner.js';" };
    expect(
      packProblems(
        good,
        manifest,
        (path) => fine[path] ?? '',
        () => true,
      ),
    ).toEqual([]);

    const problems = packProblems(
      [
        ...good.filter((p) => p !== 'dist/cli/worker.js' && p !== 'dist/src/core/thing.d.ts'),
        'dist/cli/main.js.map',
        'dist/src/core/other.d.ts',
        'src/lib/index.ts',
        'docs/screenshots/a.png',
        'test/x.test.js',
        'fixtures/apps/a/server.js',
        'dist/cli/gone.js',
      ],
      manifest,
      read,
      (path) => path !== 'dist/cli/gone.js',
    );
    expect(problems.map((p) => p.split(': ')[1])).toEqual([
      'loaded by a bin or an export, not in the package',
      'referenced by the exported declarations, not in the package',
      'names a source map that is not in the package',
      'maps to cli/main.ts, which is not in the package',
      'a declaration no exported type reaches',
      'TypeScript source (the package ships compiled JS)',
      'an image (screenshots stay in the repository)',
      'tests, fixtures or repository tooling',
      'tests, fixtures or repository tooling',
      'built from a source that no longer exists (rebuild dist from scratch)',
    ]);
    expect(
      packProblems(
        good.filter((p) => p !== 'bin/tool.js'),
        manifest,
        read,
        () => true,
      )[0],
    ).toBe('bin/tool.js: a bin or export target, not in the package');
  });

  it('holds what the bins and exports need and nothing a user cannot use', () => {
    const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as Manifest;
    expect(unbuiltBins(), 'dist/ is not built: run `npm run build` first (`npm test` does)').toEqual([]);
    const { files } = packPackage();
    const read = (path: string) => (existsSync(join(repoRoot, path)) ? readFileSync(join(repoRoot, path), 'utf8') : null);
    expect(packProblems(files, manifest, read, sourceExists)).toEqual([]);
    // What users run besides the compiled code: the console, the app templates, the docs and the GitHub App manifest.
    expect(files).toEqual(expect.arrayContaining(['web/dist/index.html', 'app.yml', 'README.md', 'docs/cli.md']));
    expect(files.some((path) => path.startsWith('cli/templates/'))).toBe(true);
  });
});
