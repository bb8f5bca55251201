// `svc previews` against the real control plane (a child process) with a project linked to a
// repository on a local fake GitHub: signed pull_request deliveries create the previews, then the CLI
// lists them (table, footer, --json), prints one's URL, refuses to tear one down or to copy production
// data without confirmation (--json, no terminal, "no" at the prompt), and does both once confirmed.
// The terminal is the one outside system faked here: a scripted TerminalInput answers the prompt.
import { EventEmitter } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeStoredConfig } from '../../cli/credentials.js';
import { main } from '../../cli/main.js';
import type { CliEffects } from '../../cli/context.js';
import type { OpenPreviewDocument } from '../../cli/commands/previews.js';
import type { TerminalInput } from '../../cli/terminal-prompt.js';
import type { Writer } from '../../cli/writer.js';
import type { deletePreviewResponseSchema, previewListResponseSchema, previewSettingsResponseSchema } from '../../src/previews/contract.js';
import type { z } from 'zod';
import { bootstrapAccount, type TestAccount } from '../support/account.js';
import { appCredentials, githubEnv, type AppCredentials } from '../support/fake-github/app-credentials.js';
import { FakeGithub } from '../support/fake-github/fake-github.js';
import { example, pullRequestPayload, signedDelivery } from '../support/fake-github/webhooks.js';
import { finalJson } from '../support/run-cli.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';

const REPO = 'acme/shop';
const REPO_ID = 777101;
const INSTALLATION = 55601;
const SLUG = 'pv-shop';
const SHA7 = '7'.repeat(40);
const SHA9 = '9abcdef'.padEnd(40, '0');

type List = z.infer<typeof previewListResponseSchema>;

let fake: FakeGithub;
let creds: AppCredentials;
let platform: StartedPlatform;
let account: TestAccount;
let home: string;
let projectId: string;

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'svc-previews-cli-'));
  creds = appCredentials();
  fake = new FakeGithub({ appId: creds.appId, publicKey: creds.publicKey });
  await fake.listen();
  fake.install(INSTALLATION, 'acme', { [REPO]: REPO_ID });
  platform = await startPlatform({ env: githubEnv(creds, fake.origin, { SVC_LOG_LEVEL: 'warn', SVC_PREVIEW_LIMIT: '3' }) });
  account = await bootstrapAccount(platform.url);
  projectId = (await account.api<{ project: { id: string } }>('POST', '/api/projects', { name: 'Preview Shop', slug: SLUG })).project.id;
  await writeStoredConfig(home, { version: 1, server: platform.url, token: account.accessToken, tokenId: account.tokenId });

  const installed = example('installation', (p) => p.action === 'created');
  installed.installation.id = INSTALLATION;
  installed.installation.account.login = 'acme';
  installed.repositories = [{ id: REPO_ID, name: 'shop', full_name: REPO, private: true, node_id: 'R_1' }];
  await deliver('installation', installed);
  await until('the installation', async () => {
    const list = await account.api<{ installations: { id: number }[] }>('GET', '/api/github/installations');
    return list.installations.some((x) => x.id === INSTALLATION);
  });
  await account.api('PUT', `/api/projects/${projectId}/github`, { repository: REPO, branch: 'main' });
}, 120_000);

afterAll(async () => {
  await platform?.stop();
  await fake?.close();
  if (home) await rm(home, { recursive: true, force: true });
});

async function deliver(event: string, payload: unknown): Promise<void> {
  const d = signedDelivery(creds.webhookSecret, event, payload);
  const res = await fetch(`${platform.url}/api/github/webhooks`, { method: 'POST', headers: d.headers, body: d.body });
  await res.arrayBuffer();
  expect(res.status, `${event} delivery`).toBe(202);
}

async function until(what: string, probe: () => Promise<unknown>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await probe()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}\nserver:\n${platform.logs().slice(-4000)}`);
}

const pullRequest = (number: number, sha: string, title: string) =>
  pullRequestPayload({ action: 'opened', number, sha, title, headRef: `feature-${number}`, repoId: REPO_ID, fullName: REPO, installationId: INSTALLATION });

class Capture implements Writer {
  text = '';
  constructor(readonly isTTY = false) {}
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

// A terminal whose user types `keys` once asked (raw mode on, question written, input resumed).
function terminalTyping(keys: string): CliEffects['stdin'] {
  const events = new EventEmitter();
  const terminal: TerminalInput = {
    setRawMode: () => undefined,
    on: (event, listener) => events.on(event, listener),
    off: (event, listener) => events.off(event, listener),
    resume: () => setImmediate(() => events.emit('data', keys)),
    pause: () => undefined,
  };
  return { isTTY: true, terminal: () => terminal, [Symbol.asyncIterator]: async function* () {} };
}

/** `svc <argv> --project <slug>` with the stored login; `typing` makes stdin a terminal that answers. */
async function svc(argv: string[], options: { typing?: string } = {}) {
  const stdout = new Capture();
  const stderr = new Capture(options.typing !== undefined);
  const code = await main([...argv, '--project', SLUG], {
    home,
    env: { NO_COLOR: '1' },
    stdout,
    stderr,
    ...(options.typing === undefined ? {} : { stdin: terminalTyping(options.typing) }),
  });
  return { code, stdout: stdout.text, stderr: stderr.text, json: <T>() => finalJson(stdout.text) as T };
}

const numbers = async () => (await svc(['previews', '--json'])).json<List>().previews.map((p) => p.number);

describe('svc previews', () => {
  it('no previews yet: says how one starts, with the limit and idle stop', async () => {
    const empty = await svc(['previews']);
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stdout).toContain('No previews. A preview starts when a pull request is opened against the linked branch');
    expect(empty.stdout).toContain('docs/previews.md');
    expect(empty.stdout).toContain('0 of 3 live previews; idle previews stop after 30 minutes');
  }, 60_000);

  it('lists the previews pull requests opened: table, footer and --json', async () => {
    await deliver('pull_request', pullRequest(7, SHA7, 'Add login'));
    await deliver('pull_request', pullRequest(9, SHA9, 'Checkout: show tax per line'));
    await until('two previews', async () => (await numbers()).length === 2);

    const json = await svc(['previews', '--json']);
    const list = json.json<List>();
    expect(list).toMatchObject({ limit: 3, idleStopMs: 1_800_000 });
    const nine = list.previews.find((p) => p.number === 9)!;
    expect(nine).toMatchObject({ parentProjectId: projectId, slug: `pr-9--${SLUG}`, headSha: SHA9, title: 'Checkout: show tax per line', state: 'waiting' });
    expect(nine.url).toContain(`pr-9--${SLUG}.`);

    const human = await svc(['previews', 'list']);
    expect(human.code, human.stderr).toBe(0);
    const lines = human.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^PR +STATE +COMMIT +URL +LAST REQUEST +TITLE$/);
    expect(lines[1]).toMatch(new RegExp(`^#9 +waiting +9abcdef +${escape(nine.url)} +never +Checkout: show tax per line$`));
    expect(lines[2]).toMatch(/^#7 +waiting +7777777 +\S*pr-7--pv-shop\.\S+ +never +Add login$/);
    expect(lines.at(-1)).toBe('2 of 3 live previews; idle previews stop after 30 minutes');
  }, 60_000);

  it('open --print and --json give the URL without a browser; an unknown number is SVC_PREVIEW_NOT_FOUND', async () => {
    const printed = await svc(['previews', 'open', '#9', '--print']);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout.trim()).toMatch(new RegExp(`pr-9--${SLUG}\\.`));
    expect(printed.stderr).toContain('no release yet');
    const doc = (await svc(['previews', 'open', '9', '--json'])).json<OpenPreviewDocument>();
    expect(doc).toEqual({ url: printed.stdout.trim(), number: 9, state: 'waiting', previewProjectId: expect.any(String), opened: false });

    const missing = await svc(['previews', 'open', '404', '--json']);
    expect(missing.json()).toMatchObject({ error: { code: 'SVC_PREVIEW_NOT_FOUND' } });
    expect(missing.code).not.toBe(0);
    const bad = await svc(['previews', 'open', 'seven']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('not a pull request number');
  }, 60_000);

  it('delete needs confirmation: refused with --json or without a terminal, and after "n"; done after "y" or with --yes', async () => {
    const scripted = await svc(['previews', 'delete', '7', '--json']);
    expect(scripted.code).toBe(2);
    expect(scripted.json()).toMatchObject({ error: { code: 'SVC_USAGE', message: expect.stringContaining('--yes') } });
    const piped = await svc(['previews', 'delete', '7']);
    expect(piped.code).toBe(2);
    expect(piped.stderr).toContain('No terminal to ask for confirmation on: pass --yes');
    const declined = await svc(['previews', 'delete', '7'], { typing: 'n\r' });
    expect(declined.code).toBe(2);
    expect(declined.stderr).toMatch(/Tear down preview #7 \(\S*pr-7--pv-shop\.\S+\)\? Its app stops and its data is deleted\. \[y\/N\] /);
    expect(await numbers()).toEqual(expect.arrayContaining([7, 9]));

    const confirmed = await svc(['previews', 'delete', '7'], { typing: 'y\r' });
    expect(confirmed.code, confirmed.stderr).toBe(0);
    expect(confirmed.stdout).toContain('Tore down preview #7');
    expect(await numbers()).toEqual([9]);

    const yes = await svc(['previews', 'delete', '9', '--yes', '--json']);
    expect(yes.code, yes.stdout).toBe(0);
    expect(yes.json<z.infer<typeof deletePreviewResponseSchema>>()).toMatchObject({ deleted: true, number: 9 });
    expect(await numbers()).toEqual([]);
    const again = await svc(['previews', 'delete', '9', '--yes', '--json']);
    expect(again.json()).toMatchObject({ error: { code: 'SVC_PREVIEW_NOT_FOUND' } });
  }, 60_000);

  it('settings: empty by default; production only after the warning and a confirmation; back to empty without one', async () => {
    type Settings = z.infer<typeof previewSettingsResponseSchema>;
    const shown = await svc(['previews', 'settings']);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toContain('Preview data: empty');
    expect(shown.stdout).toContain('empty database');

    const scripted = await svc(['previews', 'settings', '--data', 'production', '--json']);
    expect(scripted.code).toBe(2);
    const declined = await svc(['previews', 'settings', '--data', 'production'], { typing: 'no\r' });
    expect(declined.code).toBe(2);
    expect(declined.stderr).toContain("every new preview gets a copy of production's database, which holds real user data");
    expect(declined.stderr).toContain('Anyone who has a preview URL sees whatever the app shows');
    expect((await svc(['previews', 'settings', '--json'])).json<Settings>().settings.data).toBe('empty');

    const confirmed = await svc(['previews', 'settings', '--data', 'production'], { typing: 'y\r' });
    expect(confirmed.code, confirmed.stderr).toBe(0);
    expect(confirmed.stdout).toContain('Preview data: production');
    expect((await svc(['previews', 'settings', '--json'])).json<Settings>().settings.data).toBe('production');

    const back = await svc(['previews', 'settings', '--data', 'empty', '--json']);
    expect(back.code, back.stdout).toBe(0);
    expect(back.json<Settings>().settings.data).toBe('empty');
    const yes = await svc(['previews', 'settings', '--data', 'production', '--yes', '--json']);
    expect(yes.json<Settings>().settings.data).toBe('production');
    const bogus = await svc(['previews', 'settings', '--data', 'staging']);
    expect(bogus.code).toBe(2);
    expect(bogus.stderr).toContain('--data takes "empty" or "production"');
  }, 60_000);
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
