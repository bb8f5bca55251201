// What "first load" of the console weighs. Every console page is served the same index.html, so the
// JavaScript a page fetches before anyone interacts with it is: the module script and modulepreload
// links index.html names, plus every chunk those import statically (the Vite manifest's `imports`,
// followed transitively). Chunks reached only through import() — the charts, which the project
// overview fetches once it has traffic to draw — are not part of it. Sizes are gzip level 9, as the
// control plane serves them (web/dist has a precompressed .gz beside each file). Pure.

/** One entry of web/dist/.vite/manifest.json (the fields used here). */
export interface ManifestChunk {
  file: string;
  imports?: string[];
  dynamicImports?: string[];
}

export type Manifest = Record<string, ManifestChunk>;

/** The budget: 60 KB (60 000 bytes) of gzipped JavaScript. */
export const FIRST_LOAD_BUDGET_BYTES = 60_000;

/** Script URLs index.html loads by itself: module scripts and modulepreload links, as dist-relative paths. */
export function htmlScripts(html: string): string[] {
  const found: string[] = [];
  for (const tag of html.match(/<(script|link)\b[^>]*>/g) ?? []) {
    const isModule = tag.startsWith('<script') && /\btype="module"/.test(tag);
    const isPreload = tag.startsWith('<link') && /\brel="modulepreload"/.test(tag);
    const url = /\b(?:src|href)="([^"]+)"/.exec(tag)?.[1];
    if ((isModule || isPreload) && url) found.push(url.replace(/^\//, ''));
  }
  return found;
}

/** Every JS file of the first load: the HTML's scripts and their static-import closure (not dynamic imports). */
export function firstLoadFiles(html: string, manifest: Manifest): string[] {
  const byFile = new Map(Object.entries(manifest).map(([key, chunk]) => [chunk.file, key]));
  const files = new Set<string>();
  const visit = (file: string): void => {
    if (files.has(file)) return;
    files.add(file);
    const key = byFile.get(file);
    for (const imported of (key === undefined ? undefined : manifest[key])?.imports ?? []) {
      const chunk = manifest[imported];
      if (chunk) visit(chunk.file);
    }
  };
  for (const script of htmlScripts(html)) visit(script);
  return [...files];
}

export interface FirstLoadReport {
  files: { file: string; gzipBytes: number }[];
  totalBytes: number;
  budgetBytes: number;
  withinBudget: boolean;
}

/** Total gzipped size of `files` (`sizeOf` gives each file's gzipped bytes) against the budget. */
export function firstLoadReport(files: readonly string[], sizeOf: (file: string) => number, budgetBytes = FIRST_LOAD_BUDGET_BYTES): FirstLoadReport {
  const sized = files.map((file) => ({ file, gzipBytes: sizeOf(file) }));
  const totalBytes = sized.reduce((sum, f) => sum + f.gzipBytes, 0);
  return { files: sized, totalBytes, budgetBytes, withinBudget: totalBytes <= budgetBytes };
}
