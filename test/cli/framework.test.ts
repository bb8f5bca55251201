import { describe, expect, it } from 'vitest';
import { Command } from 'commander';
import { manualClock } from '../../src/core/clock.js';
import { exitCodeFor, SvcError } from '../../src/core/errors.js';
import { commandEntries } from '../../cli/commands/index.js';
import { Output } from '../../cli/output.js';
import type { CliContext } from '../../cli/context.js';
import { inProcessBuild, resolveBuildCommand } from '../../cli/run-build-command.js';
import { ROOT, runCli } from './run-cli.js';
import { textSink } from './text-sink.js';

async function registeredNames(): Promise<string[]> {
  const program = new Command('svc');
  for (const entry of commandEntries) (await entry.load()).register(program, {} as CliContext);
  return program.commands.map((cmd) => cmd.name());
}

describe('svc command framework', () => {
  it('registers the offline commands', async () => {
    expect(await registeredNames()).toEqual(expect.arrayContaining(['create', 'build', 'doctor', 'deploy', 'inspect']));
  });

  it('names under each lazily loaded entry exactly the commands its module registers', async () => {
    for (const entry of commandEntries) {
      const program = new Command('svc');
      (await entry.load()).register(program, {} as CliContext);
      expect(program.commands.map((cmd) => cmd.name())).toEqual(entry.names);
    }
  });

  it('answers --help for every command with exit 0 on stdout, listing the global --json flag', async () => {
    for (const name of await registeredNames()) {
      const run = await runCli([name, '--help'], { cwd: ROOT });
      expect(run.code, name).toBe(0);
      expect(run.stdout, name).toContain(`Usage: svc ${name}`);
      expect(run.stdout, name).toContain('--json');
    }
    const top = await runCli(['--help'], { cwd: ROOT });
    expect(top.code).toBe(0);
    for (const name of ['create', 'build', 'doctor', 'deploy', 'inspect']) expect(top.stdout).toContain(name);
  });

  it('prints the version', async () => {
    const run = await runCli(['--version'], { cwd: ROOT });
    expect(run.code).toBe(0);
    expect(run.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  it('renders usage errors as SVC_USAGE, in JSON on stdout with --json and as text on stderr without', async () => {
    const json = await runCli(['no-such-command', '--json'], { cwd: ROOT });
    expect(json.json()).toEqual({ error: { code: 'SVC_USAGE', message: expect.stringContaining('no-such-command') } });
    expect(json.code).toBe(exitCodeFor(new SvcError('SVC_USAGE')));
    expect(json.stderr).toBe('');
    const human = await runCli(['build', 'only-one-arg'], { cwd: ROOT });
    expect(human.code).toBe(exitCodeFor(new SvcError('SVC_USAGE')));
    expect(human.stdout).toBe('');
    expect(human.stderr).toMatch(/^error SVC_USAGE: missing required argument 'dist'/);
    const badFlag = await runCli(['deploy', '--dry-rn', '--json'], { cwd: ROOT });
    expect(badFlag.json()).toMatchObject({ error: { code: 'SVC_USAGE' } });
  });

  it('fails `svc deploy` without credentials with SVC_NOT_LOGGED_IN and its exit code', async () => {
    const run = await runCli(['deploy', '--json'], { cwd: ROOT, env: { HOME: ROOT + '/.no-such-home' } });
    expect(run.json()).toMatchObject({ error: { code: 'SVC_NOT_LOGGED_IN' } });
    expect(run.code).toBe(exitCodeFor(new SvcError('SVC_NOT_LOGGED_IN')));
  });

  it('draws progress on stderr only on a TTY and never with --json', () => {
    for (const [tty, json, expected] of [
      [true, false, true],
      [false, false, false],
      [true, true, false],
    ] as const) {
      const stdout = textSink(tty);
      const stderr = textSink(tty);
      const clock = manualClock(0);
      const out = new Output({ stdout, stderr, json, clock, env: {} });
      const progress = out.progress('Packing');
      progress.update('hash 1/3');
      clock.advance(100);
      progress.update('hash 3/3');
      progress.done();
      expect(stderr.text.includes('Packing hash 3/3'), `tty=${tty} json=${json}`).toBe(expected);
      expect(stdout.text).toBe('');
    }
  });

  it('renders unknown failures as SVC_INTERNAL with exit 70', () => {
    const stdout = textSink(false);
    const out = new Output({ stdout, stderr: textSink(false), json: true, clock: manualClock(), env: {} });
    out.error(new Error('boom'));
    expect(JSON.parse(stdout.text)).toEqual({ error: { code: 'SVC_INTERNAL', message: 'boom' } });
    expect(exitCodeFor(new Error('boom'))).toBe(70);
  });

  it('runs build.command as argv without a shell; "svc" means this CLI; node_modules/.bin comes first in PATH', () => {
    const self = { file: '/usr/bin/node', args: ['/opt/svc/bin/svc.js'] };
    const viaSvc = resolveBuildCommand(['svc', 'build', 'src', 'dist'], '/app', self, { PATH: '/usr/bin', HOME: '/h', UNSET: undefined });
    expect(viaSvc).toEqual({
      file: '/usr/bin/node',
      args: ['/opt/svc/bin/svc.js', 'build', 'src', 'dist'],
      cwd: '/app',
      env: { PATH: '/app/node_modules/.bin:/usr/bin', HOME: '/h' },
      replaceEnv: true,
    });
    const viaNpm = resolveBuildCommand(['npm', 'run', 'build; rm -rf /'], '/app', self, {});
    expect(viaNpm.file).toBe('npm');
    expect(viaNpm.args).toEqual(['run', 'build; rm -rf /']);
    expect(viaNpm.env?.PATH).toBe('/app/node_modules/.bin');
  });

  it('runs exactly `svc build <src> <dist>` in-process and every other build.command as a child', () => {
    expect(inProcessBuild(['svc', 'build', 'src', 'dist'])).toEqual({ src: 'src', dist: 'dist' });
    for (const argv of [
      ['svc', 'build', 'src'],
      ['svc', 'build', 'src', 'dist', '--json'],
      ['svc', 'build', '--json', 'dist'],
      ['svc', 'deploy', 'a', 'b'],
      ['npx', 'build', 'src', 'dist'],
    ])
      expect(inProcessBuild(argv), argv.join(' ')).toBeNull();
  });
});
