// The browser side of the e2e test: a page rendered by the app (CSRF meta + server-rendered seed) and
// the client bundled for the browser with esbuild from the current sources.
import { build } from 'esbuild';
import { join } from 'node:path';

const PAGE_SCRIPT = `
import { createClient } from './src/runtime/client/index.ts';
const client = createClient();
const seed = JSON.parse(document.getElementById('seed').textContent);
const sub = client.live('tasks/list', { list: 'e2e' }, seed ? { initial: seed.value, initialVersion: seed.revision } : {});
const list = document.getElementById('tasks');
function render(state) {
  list.replaceChildren(...(state.data ?? []).map((t) => Object.assign(document.createElement('li'), { textContent: t.text })));
  document.body.dataset.version = String(state.version);
  document.body.dataset.error = state.error ? state.error.code : '';
}
sub.subscribe(render);
render(sub.getState());
document.getElementById('add').addEventListener('submit', async (event) => {
  event.preventDefault();
  const input = document.getElementById('text');
  try {
    await client.mutation('tasks/add', { text: input.value, list: 'e2e' });
    input.value = '';
  } catch (error) {
    document.body.dataset.error = error.code;
  }
});
`;

/** Bundle the page script (ESM, browser platform). */
export async function bundlePageScript(): Promise<string> {
  const root = join(import.meta.dirname, '..', '..', '..', '..');
  const result = await build({
    stdin: { contents: PAGE_SCRIPT, resolveDir: root, loader: 'ts', sourcefile: 'page.ts' },
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  return result.outputFiles[0]!.text;
}

/** The HTML page: CSRF meta from the session, seed from a server-side query run. */
export function renderPage(csrfMeta: string, seed: { value: unknown; revision: number } | null): string {
  const json = JSON.stringify(seed).replace(/</g, '\\u003c');
  return `<!doctype html><html><head><meta charset="utf-8">${csrfMeta}<title>tasks</title></head>
<body><form id="add"><input id="text" name="text"><button>Add</button></form><ul id="tasks"></ul>
<script id="seed" type="application/json">${json}</script><script type="module" src="/page.js"></script></body></html>`;
}
