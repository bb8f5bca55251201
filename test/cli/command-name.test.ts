import { describe, expect, it } from 'vitest';
import { commandNameOf } from '../../cli/command-name.js';
import { loadCommands } from '../../cli/commands/index.js';

describe('commandNameOf', () => {
  it('finds the command after global flags, skipping the value of --cwd', () => {
    expect(commandNameOf(['deploy', '--json'])).toEqual({ name: 'deploy', versionOnly: false });
    expect(commandNameOf(['--json', '--cwd', 'app', 'releases', 'list'])).toEqual({ name: 'releases', versionOnly: false });
    expect(commandNameOf(['--cwd=app', 'logs'])).toEqual({ name: 'logs', versionOnly: false });
    expect(commandNameOf(['--cwd', 'deploy'])).toEqual({ name: undefined, versionOnly: false });
  });

  it('needs no command for a bare --version, and every command for help, no command or after --', () => {
    expect(commandNameOf(['--version'])).toEqual({ name: undefined, versionOnly: true });
    expect(commandNameOf(['-v', '--json'])).toEqual({ name: undefined, versionOnly: true });
    expect(commandNameOf(['-v', 'deploy'])).toEqual({ name: 'deploy', versionOnly: false });
    expect(commandNameOf(['--help', '--version'])).toEqual({ name: undefined, versionOnly: false });
    expect(commandNameOf([])).toEqual({ name: undefined, versionOnly: false });
    expect(commandNameOf(['--', 'deploy'])).toEqual({ name: undefined, versionOnly: false });
  });
});

describe('loadCommands', () => {
  it('loads only the named command, none for --version, and all for anything else', async () => {
    expect(await loadCommands({ name: 'stop', versionOnly: false })).toHaveLength(1);
    expect(await loadCommands({ name: undefined, versionOnly: true })).toEqual([]);
    const all = await loadCommands({ name: 'no-such-command', versionOnly: false });
    expect(all.length).toBeGreaterThan(20);
    expect(await loadCommands({ name: undefined, versionOnly: false })).toEqual(all);
  });
});
