// Which ingress code a process runs: a digest of the ingress modules next to this file (src/ingress
// and src/ingress/edge, the .ts sources under tsx or the built .js). The ingress reports it in its
// status; a control plane whose own digest differs asks the running ingress to hand over to its
// code (ensure-ingress.ts), so an upgrade reaches the data plane without a restart of the port.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let cached: string | null = null;

/** The digest of the modules in `dirs` with extension `ext` (sorted by name; .d.ts excluded). */
export function digestModules(dirs: readonly string[], ext: string): string {
  const hash = createHash('sha256');
  for (const dir of dirs) {
    const names = readdirSync(dir)
      .filter((name) => extname(name) === ext && !name.endsWith('.d.ts'))
      .sort();
    for (const name of names)
      hash
        .update(name)
        .update('\0')
        .update(readFileSync(join(dir, name)))
        .update('\0');
  }
  return hash.digest('hex').slice(0, 16);
}

/** This process's ingress build (computed once). */
export function ingressBuild(): string {
  if (cached !== null) return cached;
  const here = fileURLToPath(import.meta.url);
  cached = digestModules([dirname(dirname(here)), dirname(here)], extname(here));
  return cached;
}

/** The entry a successor of this build runs: this directory's ingress-main (.ts under tsx, else .js). */
export function ingressEntry(): string {
  const here = fileURLToPath(import.meta.url);
  return join(dirname(here), `ingress-main${extname(here)}`);
}
