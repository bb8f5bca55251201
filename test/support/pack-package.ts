// `npm pack` of this repository as the registry would get it: from the built dist/ as it is, with
// lifecycle scripts off (prepack would delete dist/ and prepare rebuild it under every other test
// that runs from dist/). The package-contents test reads the file list; the README test installs
// the tarball.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './repo-root.js';

/** What npm pack reported. */
export interface PackResult {
  /** The tarball's file name (in `destination`; nothing is written for a dry run). */
  filename: string;
  /** Paths inside the package. */
  files: string[];
}

/** The bins whose compiled entry is missing from dist/ (empty when `npm run build` has run). */
export function unbuiltBins(): string[] {
  const manifest = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { bin: Record<string, string> };
  return Object.values(manifest.bin).filter(
    (bin) => !existsSync(join(repoRoot, 'dist', readFileSync(join(repoRoot, bin), 'utf8').match(/\.\.\/dist\/([^'"]+)/)?.[1] ?? 'missing')),
  );
}

/** Pack the repository; `destination` receives the tarball, or omit it for a dry run. */
export function packPackage(destination?: string): PackResult {
  const args = ['pack', '--json', '--ignore-scripts', ...(destination === undefined ? ['--dry-run'] : ['--pack-destination', destination])];
  const pack = spawnSync('npm', args, { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 });
  if (pack.status !== 0) throw new Error(`npm ${args.join(' ')} failed (${pack.status ?? pack.signal}): ${pack.stderr}`);
  const [result] = JSON.parse(pack.stdout) as [{ filename: string; files: { path: string }[] }];
  return { filename: result.filename, files: result.files.map((f) => f.path) };
}
