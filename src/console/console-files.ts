// The built console (web/dist) held in memory: each file's bytes, content type, cache policy and a
// gzip copy. Reloaded when index.html changes on disk, so `npm run build:web` needs no restart.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';

export interface ConsoleFile {
  body: Buffer;
  gzip: Buffer | null;
  contentType: string;
  /** Hashed build output under /assets/: cacheable for a year. */
  immutable: boolean;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.woff2': 'font/woff2',
};
const COMPRESSIBLE = new Set(['.html', '.js', '.mjs', '.css', '.svg', '.json', '.txt']);

/** web/dist of this checkout or installed package (works from src/ and from dist/src/). */
export function defaultConsoleDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++, dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 'svc') return join(dir, 'web', 'dist');
  }
  return join(process.cwd(), 'web', 'dist');
}

function walk(root: string, dir: string, out: Map<string, ConsoleFile>): void {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) walk(root, full, out);
    else if (entry.isFile()) {
      const ext = extname(entry.name).toLowerCase();
      const urlPath = `/${relative(root, full).split(sep).join('/')}`;
      const body = readFileSync(full);
      out.set(urlPath, {
        body,
        gzip: COMPRESSIBLE.has(ext) && body.length > 1024 ? gzipSync(body, { level: 9 }) : null,
        contentType: TYPES[ext] ?? 'application/octet-stream',
        immutable: urlPath.startsWith('/assets/'),
      });
    }
  }
}

/** Holds the console files of `dir`; `current()` is null while the console is not built. */
export class ConsoleFiles {
  #files: Map<string, ConsoleFile> | null = null;
  #indexStamp = -1;

  constructor(readonly dir: string) {}

  /** The files, reloaded if index.html was rebuilt since the last call; null when not built. */
  current(): Map<string, ConsoleFile> | null {
    let stamp: number;
    try {
      stamp = statSync(join(this.dir, 'index.html')).mtimeMs;
    } catch {
      this.#files = null;
      this.#indexStamp = -1;
      return null;
    }
    if (stamp !== this.#indexStamp || !this.#files) {
      const files = new Map<string, ConsoleFile>();
      walk(this.dir, this.dir, files);
      this.#files = files;
      this.#indexStamp = stamp;
    }
    return this.#files;
  }
}
