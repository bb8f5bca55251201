// fixtures/apps/runtime-demo: packs with the default build, starts as the platform starts it (node
// dist/server.mjs with `svc` importable), and serves auth, owned tasks, CSRF and live snapshots over HTTP.
import { spawn, type ChildProcess } from 'node:child_process';
import { cp, mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, runCli, tempDir } from '../cli/run-cli.js';
import { bundleDemoClient, DEMO_CLIENT_PATH } from './support/bundle-demo-client.js';

let root: string;
let cleanup: () => Promise<void>;
let child: ChildProcess | undefined;
let base = '';

/** `node_modules/svc` pointing at the current sources (the platform links the built package the same way). */
async function linkSvc(appDir: string): Promise<void> {
  const pkg = join(appDir, 'node_modules', 'svc');
  await mkdir(pkg, { recursive: true });
  await symlink(join(ROOT, 'src'), join(pkg, 'src'));
  await writeFile(
    join(pkg, 'package.json'),
    JSON.stringify({ name: 'svc', type: 'module', exports: { './runtime': './src/runtime/index.ts', './runtime/client': './src/runtime/client/index.ts', './sqlite': './src/runtime/sqlite.ts', './operations': './src/operations.ts' } }),
  );
}

beforeAll(async () => {
  ({ dir: root, cleanup } = await tempDir('svc-runtime-demo-'));
  await cp(join(ROOT, 'fixtures', 'apps', 'runtime-demo'), join(root, 'app'), { recursive: true, filter: (src) => !/[/\\](dist|\.svc|node_modules)$/.test(src) });
}, 60_000);
afterAll(async () => {
  child?.kill('SIGKILL');
  await cleanup();
});

interface User {
  cookie: string;
  csrf: string;
}

async function signUp(email: string): Promise<User> {
  const response = await fetch(`${base}/__svc/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'demo password 1' }) });
  expect(response.status).toBe(201);
  return { cookie: response.headers.getSetCookie()[0]!.split(';')[0]!, csrf: ((await response.json()) as { csrfToken: string }).csrfToken };
}

async function call(user: User, kind: 'query' | 'mutation', path: string, args: unknown, csrf = true): Promise<{ status: number; body: { value?: unknown; error?: { code: string } } }> {
  const response = await fetch(`${base}/__svc/${kind}/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', cookie: user.cookie, ...(csrf ? { 'x-svc-csrf': user.csrf } : {}) },
    body: JSON.stringify(args),
  });
  return { status: response.status, body: (await response.json()) as { value?: unknown; error?: { code: string } } };
}

describe('runtime-demo fixture', () => {
  it('ships an up-to-date browser bundle of the client', async () => {
    expect(await readFile(DEMO_CLIENT_PATH, 'utf8'), 'regenerate: node --import tsx test/runtime/support/bundle-demo-client.ts').toBe(await bundleDemoClient());
  });

  it('builds with the default build command and packs server, backend and page assets', async () => {
    const app = join(root, 'app');
    const doctor = await runCli(['doctor', '--build', '--json'], { cwd: app });
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0);
    const packed = await runCli(['deploy', '--dry-run', '--no-build', '--json'], { cwd: app });
    expect(packed.code, packed.stderr).toBe(0);
    const inspected = (await runCli(['inspect', packed.json<{ path: string }>().path, '--json'], { cwd: app })).json<{ files: Array<{ path: string }> }>();
    expect(inspected.files.map((f) => f.path)).toEqual(['dist/backend.mjs', 'dist/public/app.js', 'dist/public/svc-client.js', 'dist/server.mjs']);
  }, 120_000);

  it('starts, serves the page, and keeps each user to their own tasks with CSRF and live snapshots', async () => {
    const app = join(root, 'app');
    await linkSvc(app);
    child = spawn(process.execPath, ['--import', pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href, join(app, 'dist', 'server.mjs')], {
      cwd: app,
      env: { PATH: process.env.PATH ?? '', PORT: '0', HOST: '127.0.0.1', NODE_ENV: 'production', SVC_DATABASE_PATH: join(root, 'app.db') },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    base = await new Promise<string>((resolve, reject) => {
      let out = '';
      const timer = setTimeout(() => reject(new Error(`no listening line: ${out}`)), 30_000);
      child!.once('exit', (code) => reject(new Error(`demo exited with ${code}: ${out}`)));
      child!.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (match?.[1]) {
          clearTimeout(timer);
          resolve(match[1]);
        }
      });
    });
    expect((await fetch(`${base}/healthz`)).status).toBe(200);
    const anonymous = await (await fetch(`${base}/`)).text();
    expect(anonymous).toContain('<meta name="svc-csrf" content="">');
    expect((await fetch(`${base}/svc-client.js`)).status).toBe(200);

    const alice = await signUp('alice@example.com');
    const bob = await signUp('bob@example.com');
    const page = await (await fetch(`${base}/`, { headers: { cookie: alice.cookie } })).text();
    expect(page).toContain(`<meta name="svc-csrf" content="${alice.csrf}">`);

    expect((await call(alice, 'mutation', 'tasks/add', { text: 'no token' }, false)).body.error?.code).toBe('SVC_RUNTIME_CSRF');
    const id = (await call(alice, 'mutation', 'tasks/add', { text: 'write docs' })).body.value as string;
    expect((await call(alice, 'query', 'tasks/list', {})).body.value).toEqual([expect.objectContaining({ _id: id, text: 'write docs', done: false })]);
    expect((await call(bob, 'query', 'tasks/list', {})).body.value).toEqual([]);
    expect((await call(bob, 'mutation', 'tasks/toggle', { id })).body.value).toBeNull();
    expect((await call(bob, 'mutation', 'tasks/remove', { id })).body.value).toBeNull();
    expect((await call(alice, 'mutation', 'tasks/toggle', { id })).body.value).toMatchObject({ done: true, _version: 2 });
    const cross = await fetch(`${base}/__svc/mutation/tasks/add`, { method: 'POST', headers: { origin: 'https://evil.example', cookie: alice.cookie, 'x-svc-csrf': alice.csrf }, body: '{"text":"x"}' });
    expect(cross.status).toBe(403);

    // The live route streams a snapshot of alice's tasks with the revision as event id.
    const controller = new AbortController();
    const stream = await fetch(`${base}/__svc/live/tasks/list?args=%7B%7D`, { headers: { cookie: alice.cookie }, signal: controller.signal });
    expect(stream.status).toBe(200);
    expect(stream.headers.get('content-type')).toContain('text/event-stream');
    const reader = stream.body!.getReader();
    let text = '';
    const deadline = Date.now() + 10_000;
    while (!text.includes('write docs') && Date.now() < deadline) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    expect(text).toMatch(/id: 2\n/);
    expect(text).toContain('write docs');
  }, 120_000);
});
