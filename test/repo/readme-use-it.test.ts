// The README's "Use it" block, run as a new user would: every line verbatim, in one bash shell on a
// terminal, in an empty directory outside the checkout, with `svc` from the packed package (npm pack
// of the built dist/, installed globally into a temporary npm prefix) and a real control plane
// (SVC_SERVER). `svc register` is answered at its prompts; the rest runs unattended.
//
// The one line not run verbatim is the install line (`npm install -g <package name>`): it would fetch
// the published package, so the test installs the packed tarball instead, before the block runs,
// and puts that line's place in the script to checking that `svc` on PATH is the tarball's. The
// install (about 370 packages, minutes on a busy machine) is kept while the tarball is unchanged.
// The npm that installs runs with a user's environment, not the npm_* variables of `npx vitest`.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStoredConfig } from '../../cli/credentials.js';
import { readProjectLink } from '../../cli/project-link.js';
import { routePath } from '../../src/identity/contract.js';
import { releaseRoutes } from '../../src/releases/contract.js';
import { PACKAGE_NAME } from '../../src/core/package-name.js';
import { packPackage, unbuiltBins } from '../support/pack-package.js';
import { repoRoot } from '../support/repo-root.js';
import { requireComponents, sandboxComponents } from '../support/require-components.js';
import { runInTerminal, shellQuote, terminalComponent } from '../support/run-in-terminal.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';

/** The marker before the block, an HTML comment the rendered README does not show. */
const MARKER = '<!-- use-it:';
const INSTALL_LINE = `npm install -g ${PACKAGE_NAME}`;
const PASSWORD = 'a long enough password';

/** The lines of the first ```sh block after the marker, as written (comments included). */
function useItLines(readme: string): string[] {
  const at = readme.indexOf(MARKER);
  if (at === -1) throw new Error(`README.md has no ${MARKER} … --> marker`);
  const block = /```sh\n([\s\S]*?)\n```/.exec(readme.slice(at));
  if (!block) throw new Error('no ```sh block after the use-it marker');
  return block[1]!.split('\n').filter((line) => line.trim() !== '');
}

/** The script the block becomes: stop at the first failing line; the install line replaced by `installed`. */
function useItScript(lines: readonly string[], installed: string): string {
  const [install, ...rest] = lines;
  if (!install?.startsWith(`${INSTALL_LINE} `) && install !== INSTALL_LINE)
    throw new Error(`the block must start with "${INSTALL_LINE}"; it starts with ${install}`);
  return ['set -e', installed, ...rest, ''].join('\n');
}

const gate = requireComponents('the README "Use it" block', [terminalComponent(), ...sandboxComponents()]);

describe('the README "Use it" block (lines only)', () => {
  it('is found by its marker, starts with the global install and names the svc commands', () => {
    const lines = useItLines(readFileSync(join(repoRoot, 'README.md'), 'utf8'));
    expect(lines[0]!.startsWith(INSTALL_LINE)).toBe(true);
    expect(lines.some((line) => line.startsWith('svc register'))).toBe(true);
    expect(lines.some((line) => line.startsWith('svc create my-app && cd my-app'))).toBe(true);
    expect(lines.some((line) => line.startsWith('svc deploy '))).toBe(true);
    // npx svc would fetch the unrelated `svc` package from the registry.
    expect(lines.filter((line) => /\bnpx svc\b/.test(line))).toEqual([]);
    expect(() => useItScript(['npx svc create x'], 'true')).toThrow(/must start with/);
    expect(useItScript([`${INSTALL_LINE}   # a comment`, 'svc doctor'], 'check')).toBe('set -e\ncheck\nsvc doctor\n');
  });
});

/** PATH with `bin` first and without the node_modules/.bin directories `npx vitest` adds. */
function userPath(bin: string): string {
  return [bin, ...(process.env.PATH ?? '').split(':').filter((dir) => dir !== '' && !dir.includes('node_modules'))].join(':');
}

/** Environment of a user's shell: none of the npm_* variables `npx vitest` runs under. */
function shellEnv(): Record<string, string> {
  return Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined && !/^npm_/i.test(entry[0]) && entry[0] !== 'PATH'),
  );
}

/**
 * Install the tarball with `npm install -g` into a prefix kept for this tarball's content, and return
 * the prefix. The install goes to a directory of its own and is renamed into place, so runs at the
 * same time never share a half-made prefix; prefixes left unused for a day are removed.
 */
async function installPacked(): Promise<string> {
  const packs = await mkdtemp(join(tmpdir(), 'svc-readme-pack-'));
  try {
    const { filename } = packPackage(packs);
    const tarball = join(packs, filename);
    const digest = createHash('sha256').update(readFileSync(tarball)).digest('hex').slice(0, 16);
    const prefix = join(tmpdir(), `svc-readme-prefix-${digest}`);
    for (const entry of await readdir(tmpdir())) {
      const path = join(tmpdir(), entry);
      if (entry.startsWith('svc-readme-prefix-') && path !== prefix && Date.now() - (await stat(path)).mtimeMs > 86_400_000)
        await rm(path, { recursive: true, force: true });
    }
    if (existsSync(join(prefix, 'installed'))) return prefix;
    const partial = await mkdtemp(`${prefix}.partial-`);
    // Its dependencies come from the npm cache when they are there, else from the registry.
    const install = spawnSync('npm', ['install', '-g', '--prefer-offline', '--no-audit', '--no-fund', tarball], {
      cwd: partial,
      env: { ...shellEnv(), PATH: userPath(join(partial, 'bin')), npm_config_prefix: partial },
      encoding: 'utf8',
      timeout: 600_000,
    });
    if (install.status !== 0) {
      await rm(partial, { recursive: true, force: true });
      throw new Error(`npm install -g ${tarball} failed (${install.status ?? install.signal}):\n${install.stderr.slice(-4000)}`);
    }
    await writeFile(join(partial, 'installed'), `${digest}\n`);
    // Another run may have finished the same install first: then keep its prefix.
    await rename(partial, prefix).catch(async () => {
      if (existsSync(join(prefix, 'installed'))) return rm(partial, { recursive: true, force: true });
      // A prefix some interrupted run left half made.
      await rm(prefix, { recursive: true, force: true });
      await rename(partial, prefix);
    });
    return prefix;
  } finally {
    await rm(packs, { recursive: true, force: true });
  }
}

describe.skipIf(gate.skip)('the README "Use it" block, run verbatim against a packed install', () => {
  let platform: StartedPlatform;
  let prefix: string;
  let work: string;
  beforeAll(async () => {
    gate.assertPresent();
    expect(unbuiltBins(), 'dist/ is not built: run `npm run build` first (`npm test` does)').toEqual([]);
    // One after the other: the install keeps a small machine busy enough to slow the platform's start.
    prefix = await installPacked();
    platform = await startPlatform({ env: { SVC_LOG_LEVEL: 'warn' }, readyTimeoutMs: 120_000 });
    work = await mkdtemp(join(tmpdir(), 'svc-readme-'));
  }, 900_000);
  afterAll(async () => {
    await platform?.stop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it('registers, creates, checks, deploys and lists releases and logs from an empty directory', async () => {
    const home = join(work, 'home');
    const dir = join(work, 'empty');
    await mkdir(home);
    await mkdir(dir);
    const bin = join(prefix, 'bin');
    const lines = useItLines(readFileSync(join(repoRoot, 'README.md'), 'utf8'));
    await writeFile(join(work, 'use-it.sh'), useItScript(lines, `test "$(command -v svc)" = ${shellQuote(join(bin, 'svc'))}`));
    const session = runInTerminal(`bash ${shellQuote(join(work, 'use-it.sh'))}`, {
      cwd: dir,
      env: { PATH: userPath(bin), HOME: home, SVC_SERVER: platform.url, NO_COLOR: '1', TERM: 'dumb' },
      timeoutMs: 600_000,
    });
    try {
      await session.waitFor(/Email: $/);
      session.type('owner@example.com\r');
      await session.waitFor(/Password \(at least 10 characters\): $/);
      session.type(`${PASSWORD}\r`);
      await session.waitFor(/Repeat the password: $/);
      session.type(`${PASSWORD}\r`);
      const { exitCode, output } = await session.exited;
      expect(exitCode, `${output}\n--- server ---\n${platform.logs().slice(-4000)}`).toBe(0);
      expect(output).toContain(`Registered owner@example.com on ${platform.url} and logged in.`);
      expect(output).toContain('Created my-app');
      expect(output).not.toContain(PASSWORD);
    } finally {
      session.kill();
    }
    // The block left what it says: the app, linked to a project whose release is active.
    const link = await readProjectLink(join(dir, 'my-app'));
    expect(link?.server).toBe(platform.url);
    const { token } = (await readStoredConfig(home))!;
    const answer = await fetch(`${platform.url}${routePath(releaseRoutes.releases, { id: link!.projectId })}`, {
      headers: { authorization: `Bearer ${token}` },
    });
    const releases = (await answer.json()) as { releases: { status: string }[] };
    expect(releases.releases.map((r) => r.status)).toContain('active');
    // The app serves, and its database opens through `@svc-dev/svc/sqlite`, which the platform provides.
    const notes = await request(`${platform.url}/notes`, { headers: { host: `${link!.slug}.localhost:${platform.port}` } });
    expect(notes.statusCode).toBe(200);
    expect(await notes.body.json()).toEqual({ notes: [] });
  }, 900_000);
});
