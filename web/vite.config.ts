// Vite build of the console: Preact, output in web/dist served by src/console at "/".
// No inline script or style may reach index.html (the control plane's CSP forbids them).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import preact from '@preact/preset-vite';
import { defineConfig, type Plugin } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

/**
 * A `<file>.gz` beside every text file over 1 KB: the control plane's static file server
 * (@fastify/static, preCompressed) sends it to browsers that accept gzip instead of compressing per request.
 */
function gzipCopies(): Plugin {
  return {
    name: 'svc-gzip-copies',
    apply: 'build',
    async writeBundle(output, bundle) {
      for (const file of Object.values(bundle)) {
        if (!/\.(html|js|css|svg|json)$/.test(file.fileName)) continue;
        const body = file.type === 'chunk' ? file.code : file.source;
        if (body.length <= 1024) continue;
        await writeFile(join(output.dir ?? join(root, 'dist'), `${file.fileName}.gz`), gzipSync(body, { level: 9 }));
      }
    },
  };
}

export default defineConfig({
  root,
  base: '/',
  plugins: [preact({ devToolsEnabled: false, prefreshEnabled: false }), gzipCopies()],
  // The contracts' `import { z } from 'zod'` runs on zod/mini in the browser (see src/lib/zod-on-mini.ts):
  // the same schemas, without shipping classic zod. Only the bare specifier; `zod/mini` itself resolves normally.
  resolve: { alias: [{ find: /^zod$/, replacement: join(root, 'src', 'lib', 'zod-on-mini.ts') }] },
  // Vite's .env loading is not used: the console takes nothing from the build environment.
  envDir: false,
  publicDir: false,
  logLevel: 'warn',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // The polyfill is an inline <script>; every browser we support has modulepreload.
    modulePreload: { polyfill: false },
    // Never inline assets as data: URLs into scripts or CSS beyond tiny images.
    assetsInlineLimit: 0,
    // The chart chunk's stylesheet (uPlot) loads with the chunk, not on every page.
    cssCodeSplit: true,
    // web/dist/.vite/manifest.json: which scripts a page loads first (test/web/bundle-size.test.ts reads it).
    manifest: true,
    sourcemap: false,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 600,
    rollupOptions: {
      // zod's sources carry comments Rollup cannot place; harmless, so keep the build output quiet.
      onLog(level, log, handler) {
        if (log.code === 'INVALID_ANNOTATION' && (log.id ?? log.message).includes('node_modules/zod/')) return;
        handler(level, log);
      },
    },
  },
  server: { host: '127.0.0.1', strictPort: true },
});
