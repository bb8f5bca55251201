// Live progress against the real control plane and real `svc` processes: a release whose health
// check takes a few seconds shows its steps while `svc deploy --json` is still running (JSON lines,
// the last one the result); human output off a terminal has one line per phase with the elapsed
// time, on a terminal one redrawn line; `svc rollback` shows the server's steps of the rollback the same
// way (and a failing one exits with the failure's code), `svc backups restore` its phase too.
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exitCodeFor, SvcError } from '../../src/core/errors.js';
import { projectLayout } from '../../src/releases/project-layout.js';
import { runCli as runInProcess } from '../cli/run-cli.js';
import { bootstrapAccount, type TestAccount } from '../support/account.js';
import { repoRoot } from '../support/repo-root.js';
import { runCli, spawnCli, type CliResult } from '../support/run-cli.js';
import { startPlatform, type StartedPlatform } from '../support/start-platform.js';

const SLUG = 'live-site';
// The app listens only after this long, so the health step lasts about as long.
const START_DELAY_MS = 2500;
// How the terminal line is redrawn: back to column 0 (split on), then erase the line.
const CLEAR_LINE = '\x1b[2K';

let root: string;
let app: string;
let platform: StartedPlatform;
let account: TestAccount;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'svc-cli-live-'));
  app = join(root, 'app');
  await cp(join(repoRoot, 'fixtures', 'apps', 'slow-start'), app, { recursive: true });
  const configPath = join(app, 'svc.deploy.json');
  const config = JSON.parse(await readFile(configPath, 'utf8')) as { health: { timeoutMs: number }; env: Record<string, string> };
  config.health.timeoutMs = 30_000;
  config.env = { ...config.env, SLOW_START_DELAY_MS: String(START_DELAY_MS) };
  await writeFile(configPath, JSON.stringify(config, null, 2));
  // The copy's health check fails while <data>/unhealthy exists: a rollback that fails at health.
  const serverPath = join(app, 'src', 'server.mjs');
  const server = await readFile(serverPath, 'utf8');
  const health = "if (pathname === '/healthz')";
  if (!server.includes(health)) throw new Error('the slow-start fixture changed: no /healthz line');
  const unhealthy = `if (pathname === '/healthz' && (await import('node:fs')).existsSync(process.env.SVC_DATA_DIR + '/unhealthy')) return send(res, 503, { ok: false });\n  `;
  await writeFile(serverPath, server.replace(health, unhealthy + health));
  platform = await startPlatform();
  account = await bootstrapAccount(platform.url);
}, 90_000);

afterAll(async () => {
  await platform?.stop();
  if (root) await rm(root, { recursive: true, force: true });
});

const env = () => ({ SVC_TOKEN: account.accessToken, SVC_SERVER: platform.url });
const svc = (args: string[]): Promise<CliResult> => runCli(['--cwd', app, ...args], { home: root, env: env(), timeoutMs: 120_000 });

interface Line {
  event: string;
  phase?: string;
  elapsedMs?: number;
  [key: string]: unknown;
}

/** Every stdout line parsed as JSON (throws on one that is not). */
function jsonLines(result: CliResult): Line[] {
  const lines = result.stdout.split('\n').filter((line) => line !== '');
  return lines.map((line) => {
    try {
      return JSON.parse(line) as Line;
    } catch {
      throw new Error(`not a JSON line: ${line}\nstdout: ${result.stdout}\nstderr: ${result.stderr}\nserver:\n${platform.logs().slice(-3000)}`);
    }
  });
}

function phasesOf(lines: Line[]): string[] {
  return lines.filter((line) => line.event === 'phase').map((line) => line.phase!);
}

describe('live progress of svc deploy, rollback and restore', () => {
  let first: string;

  it('streams the steps as JSON lines while the deploy runs, ending with the result', async () => {
    const deploy = spawnCli(['--cwd', app, 'deploy', '--slug', SLUG, '--json'], { home: root, env: env(), timeoutMs: 120_000 });
    try {
      // The health step is read from stdout while the process is still running.
      await deploy.waitForOutput(/"event":"phase","phase":"health"/, 60_000);
      expect(deploy.child.exitCode).toBeNull();
      expect(deploy.stdout()).not.toContain('"event":"result"');
    } catch (error) {
      deploy.kill();
      throw error;
    }
    const result = await deploy.exited;
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    const lines = jsonLines(result);
    const phases = phasesOf(lines);
    expect(phases.slice(0, 2)).toEqual(['pack', 'upload']);
    expect(phases).toEqual(expect.arrayContaining(['migrate', 'start', 'health', 'activate']));
    expect(phases.indexOf('start')).toBeLessThan(phases.indexOf('health'));
    expect(phases.indexOf('health')).toBeLessThan(phases.indexOf('activate'));
    const elapsed = lines.filter((line) => line.event === 'phase').map((line) => line.elapsedMs!);
    expect(elapsed).toEqual([...elapsed].sort((a, b) => a - b));
    // The health step lasted about as long as the app took to listen.
    const health = lines.find((line) => line.phase === 'health')!;
    const activate = lines.find((line) => line.phase === 'activate')!;
    expect(activate.elapsedMs! - health.elapsedMs!).toBeGreaterThanOrEqual(START_DELAY_MS - 1000);
    // The last line is the document `--json` printed before events were streamed, plus "event".
    const last = lines.at(-1)!;
    expect(last).toMatchObject({ event: 'result', project: { slug: SLUG, created: true }, release: { status: 'active' }, created: true, resumed: false });
    expect(lines.filter((line) => line.event === 'result')).toHaveLength(1);
    first = (last.release as { id: string }).id;
    expect(lines.find((line) => line.phase === 'health')).toMatchObject({ releaseId: first, at: expect.any(String) });
  }, 150_000);

  it('prints one plain line per phase with the elapsed time when not on a terminal', async () => {
    const result = await svc(['deploy']);
    expect(result.exitCode, result.stdout + result.stderr).toBe(0);
    expect(result.stderr).toMatch(/^\[ *\d+\.\ds\] upload — uploading the artifact$/m);
    expect(result.stderr).toMatch(/^\[ *\d+\.\ds\] health — waiting for the health check$/m);
    expect(result.stderr).toMatch(/^\[ *\d+\.\ds\] activate — switching traffic to the release$/m);
    expect(result.stderr).not.toContain('\r'); // nothing redrawn off a terminal
    expect(result.stdout).toMatch(/Release \S+ is active/);
  }, 150_000);

  it('redraws one line on a terminal: the phase and the time so far', async () => {
    const run = await runInProcess(['deploy'], { cwd: app, home: root, tty: true, env: env() });
    expect(run.code, run.stdout + run.stderr).toBe(0);
    // While the health check waits, the same line is redrawn with a growing time.
    const redraws = run.stderr
      .split('\r')
      .filter((frame) => frame.startsWith(CLEAR_LINE))
      .map((frame) => /^[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] health — waiting for the health check · (\d+\.\d)s$/u.exec(frame.slice(CLEAR_LINE.length)))
      .filter((match) => match !== null)
      .map((match) => Number(match[1]));
    expect(new Set(redraws).size, run.stderr).toBeGreaterThanOrEqual(3);
    expect(redraws).toEqual([...redraws].sort((x, y) => x - y));
    expect(run.stderr).not.toMatch(/^\[ *\d+\.\ds\]/m); // no plain phase lines on a terminal
    expect(run.stdout).toMatch(/Release \S+ is active/);
  }, 150_000);

  it('shows rollback progress, as lines and as JSON lines', async () => {
    const human = await svc(['rollback', first]);
    expect(human.exitCode, human.stdout + human.stderr).toBe(0);
    expect(human.stderr).toMatch(/^\[ *\d+\.\ds\] rollback — rolling back/m);
    expect(human.stdout).toContain(`Release ${first} is active again`);

    const releases = JSON.parse((await svc(['releases', '--json'])).stdout) as { releases: Array<{ id: string; status: string }> };
    const other = releases.releases.find((r) => r.status === 'inactive' && r.id !== first)!;
    const rolling = spawnCli(['--cwd', app, 'rollback', other.id, '--json'], { home: root, env: env(), timeoutMs: 120_000 });
    try {
      // The server's health step of the rollback is read while the CLI still runs.
      await rolling.waitForOutput(/"event":"phase","phase":"health"/, 60_000);
      expect(rolling.child.exitCode).toBeNull();
      expect(rolling.stdout()).not.toContain('"event":"result"');
    } catch (error) {
      rolling.kill();
      throw error;
    }
    const json = await rolling.exited;
    expect(json.exitCode, json.stdout + json.stderr).toBe(0);
    const lines = jsonLines(json);
    expect(lines[0]).toMatchObject({ event: 'phase', phase: 'rollback', releaseId: other.id, elapsedMs: expect.any(Number) });
    const phases = phasesOf(lines);
    expect(phases).toEqual(expect.arrayContaining(['start', 'health', 'activate']));
    expect(phases.indexOf('health')).toBeLessThan(phases.indexOf('activate'));
    expect(lines.find((line) => line.phase === 'health')).toMatchObject({ releaseId: other.id, at: expect.any(String) });
    // The same document as when the server answered at the end.
    expect(lines.at(-1)).toMatchObject({ event: 'result', release: { id: other.id, status: 'active' }, previousReleaseId: first, restoredData: false });
    expect(lines.at(-1)).not.toHaveProperty('running');
    expect(lines.filter((line) => line.event === 'result')).toHaveLength(1);
  }, 150_000);

  it('reports the code of a rollback that fails at its health check, after its steps', async () => {
    const releases = JSON.parse((await svc(['releases', '--json'])).stdout) as {
      releases: Array<{ id: string; status: string; projectId: string }>;
      activeReleaseId: string;
    };
    const target = releases.releases.find((r) => r.status === 'inactive')!;
    const flag = join(projectLayout(platform.dataDir, target.projectId).dataDir, 'unhealthy');
    await writeFile(flag, 'x');
    try {
      const failed = await svc(['rollback', target.id, '--json']);
      expect(failed.exitCode, failed.stdout + failed.stderr).toBe(exitCodeFor(new SvcError('SVC_HEALTH_CHECK_FAILED')));
      expect(failed.stdout + failed.stderr).toContain('SVC_HEALTH_CHECK_FAILED');
      const phases = phasesOf(jsonLines(failed));
      expect(phases).toEqual(expect.arrayContaining(['rollback', 'start', 'health']));
      expect(phases).not.toContain('activate');
    } finally {
      await rm(flag, { force: true });
    }
    const after = JSON.parse((await svc(['releases', '--json'])).stdout) as { activeReleaseId: string };
    expect(after.activeReleaseId).toBe(releases.activeReleaseId);
  }, 150_000);

  it('shows restore progress for svc backups restore', async () => {
    const created = await svc(['backups', 'create', '--json']);
    expect(created.exitCode, created.stdout + created.stderr).toBe(0);
    const backup = (JSON.parse(created.stdout) as { backup: { id: string } }).backup;
    const restored = await svc(['backups', 'restore', backup.id, `--confirm=restore ${SLUG}`, '--json']);
    expect(restored.exitCode, restored.stdout + restored.stderr).toBe(0);
    const lines = jsonLines(restored);
    expect(phasesOf(lines)).toEqual(['restore']);
    expect(lines.at(-1)).toMatchObject({ event: 'result', backup: { id: backup.id } });

    const human = await svc(['backups', 'restore', backup.id, `--confirm=restore ${SLUG}`]);
    expect(human.exitCode, human.stdout + human.stderr).toBe(0);
    expect(human.stderr).toMatch(/^\[ *\d+\.\ds\] restore — restoring the database$/m);
    expect(human.stdout).toContain(`Restored backup ${backup.id}`);
  }, 150_000);
});
