// Generates fixtures/apps/runtime-demo/src/public/svc-client.js: the svc client (src/runtime/client)
// bundled for browsers with esbuild. The demo ships it prebuilt so its default `svc build` needs no
// bundler; test/runtime/runtime-demo.test.ts fails when it is stale.
// Regenerate: node --import tsx test/runtime/support/bundle-demo-client.ts
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';

const ROOT = join(import.meta.dirname, '..', '..', '..');
export const DEMO_CLIENT_PATH = join(ROOT, 'fixtures', 'apps', 'runtime-demo', 'src', 'public', 'svc-client.js');

/** The browser bundle of the client, as the demo should contain it. */
export async function bundleDemoClient(): Promise<string> {
  const result = await build({
    entryPoints: [join(ROOT, 'src', 'runtime', 'client', 'index.ts')],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    write: false,
    logLevel: 'silent',
  });
  return `// Generated from src/runtime/client by test/runtime/support/bundle-demo-client.ts — do not edit.\n${result.outputFiles[0]!.text}`;
}

if (process.argv[1] && import.meta.filename === process.argv[1]) {
  writeFileSync(DEMO_CLIENT_PATH, await bundleDemoClient());
  console.log(`wrote ${DEMO_CLIENT_PATH}`);
}
