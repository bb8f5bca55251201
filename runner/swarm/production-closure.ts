// Which installed packages the svc platform needs at run time: its `dependencies` (and installed
// optional ones), then theirs, resolved the way Node resolves them (nearest node_modules upwards),
// never `devDependencies`. Read from the installed tree, so the answer is what is really on disk.
// Pure over a manifest reader.
import { SvcError } from '../../src/core/errors.js';

export interface PackageManifest {
  dependencies?: Record<string, string>;
  optionalDependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

/** Reads `<dir>/package.json` (dir relative to the package root, '' for the root), or null when absent. */
export type ManifestReader = (dir: string) => PackageManifest | null;

/** Where Node looks for `name` from a package at `dir`: `<ancestor>/node_modules/<name>`, nearest first. */
export function resolutionCandidates(dir: string, name: string): string[] {
  const segments = dir === '' ? [] : dir.split('/');
  const candidates: string[] = [];
  for (let end = segments.length; end >= 0; end--) {
    // An ancestor that is itself a node_modules folder holds packages, not a node_modules of its own.
    if (end > 0 && segments[end - 1] === 'node_modules') continue;
    candidates.push([...segments.slice(0, end), 'node_modules', name].join('/'));
  }
  return candidates;
}

/**
 * Package directories (relative to the root, e.g. `node_modules/a/node_modules/b`) the root's
 * production dependencies need, sorted. A required dependency that is not installed is an error;
 * an optional or peer dependency that is not installed is skipped.
 */
export function productionClosure(read: ManifestReader): string[] {
  const root = read('');
  if (!root) throw new SvcError('SVC_RUNNER_CONFIG', 'The svc package has no package.json');
  const found = new Set<string>();
  const queue: Array<{ dir: string; manifest: PackageManifest; includePeers: boolean }> = [{ dir: '', manifest: root, includePeers: false }];
  while (queue.length) {
    const { dir, manifest, includePeers } = queue.shift()!;
    const wanted: Array<[string, boolean]> = [
      ...Object.keys(manifest.dependencies ?? {}).map((name): [string, boolean] => [name, true]),
      ...Object.keys(manifest.optionalDependencies ?? {}).map((name): [string, boolean] => [name, false]),
      ...(includePeers ? Object.keys(manifest.peerDependencies ?? {}).map((name): [string, boolean] => [name, false]) : []),
    ];
    for (const [name, required] of wanted) {
      let resolved: { dir: string; manifest: PackageManifest } | undefined;
      for (const candidate of resolutionCandidates(dir, name)) {
        const candidateManifest = read(candidate);
        if (candidateManifest) {
          resolved = { dir: candidate, manifest: candidateManifest };
          break;
        }
      }
      if (!resolved) {
        if (required)
          throw new SvcError('SVC_RUNNER_CONFIG', `${dir || 'svc'} needs ${name}, which is not installed: run npm ci --omit=dev in the svc package`);
        continue;
      }
      if (found.has(resolved.dir)) continue;
      found.add(resolved.dir);
      queue.push({ ...resolved, includePeers: true });
    }
  }
  return [...found].sort();
}
