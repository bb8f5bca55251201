// Where the built console (web/dist) lives and which of its files a URL may name. The bytes are
// sent by @fastify/static (console-routes.ts), read from disk per request, so `npm run build:web`
// needs no restart; the build writes gzip copies next to the larger text files.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PACKAGE_NAME } from '../core/package-name.js';

/** web/dist of this checkout or installed package (works from src/ and from dist/src/). */
export function defaultConsoleDir(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++, dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg) && (JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === PACKAGE_NAME) return join(dir, 'web', 'dist');
  }
  return join(process.cwd(), 'web', 'dist');
}

/**
 * Whether a decoded URL path may name a file of the console: no `.`/`..` segment (so nothing outside
 * the build, and no `/assets/../index.html` aliases), no dotfiles, no backslash or NUL. Pure.
 */
export function isServablePath(path: string): boolean {
  if (!path.startsWith('/') || path.includes('\\') || path.includes('\0')) return false;
  return path
    .slice(1)
    .split('/')
    .every((segment) => segment !== '' && !segment.startsWith('.'));
}

/** Cache-Control of a console file: hashed build output under /assets/ for a year, the rest revalidated. Pure. */
export function consoleCacheControl(path: string): string {
  return path.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
}
