// Vite build of the console: Preact, output in web/dist served by src/console at "/".
// No inline script or style may reach index.html (the control plane's CSP forbids them).
import { fileURLToPath } from 'node:url';
import preact from '@preact/preset-vite';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root,
  base: '/',
  plugins: [preact({ devToolsEnabled: false, prefreshEnabled: false })],
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
    cssCodeSplit: false,
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
