// The PR comment command parser: strict, pure, exhaustive.
import { describe, expect, it } from 'vitest';
import { commandHelp, parseCommand, tokenize } from '../../src/github/parse-command.js';

const ok = (body: string) => {
  const result = parseCommand(body);
  if (result.type !== 'command') throw new Error(`expected a command, got ${JSON.stringify(result)}`);
  return result.command;
};
const error = (body: string) => {
  const result = parseCommand(body);
  if (result.type !== 'error') throw new Error(`expected an error, got ${JSON.stringify(result)}`);
  return result.message;
};

describe('parseCommand', () => {
  it('parses help and both rollback forms', () => {
    expect(ok('/svc help')).toEqual({ kind: 'help' });
    expect(ok('/svc rollback rel_abc')).toEqual({ kind: 'rollback', releaseId: 'rel_abc', restoreData: false, confirm: null });
    expect(ok('/svc rollback rel_abc --restore-data --confirm "restore shop"')).toEqual({
      kind: 'rollback',
      releaseId: 'rel_abc',
      restoreData: true,
      confirm: 'restore shop',
    });
    expect(ok('/svc rollback --restore-data rel_abc --confirm="restore shop"')).toEqual({
      kind: 'rollback',
      releaseId: 'rel_abc',
      restoreData: true,
      confirm: 'restore shop',
    });
    expect(ok('/svc rollback rel_abc --restore-data')).toEqual({ kind: 'rollback', releaseId: 'rel_abc', restoreData: true, confirm: null });
  });

  it('uses only the first line; trailing spaces and CRLF are fine', () => {
    expect(ok('/svc rollback rel_abc   \r\nbecause the checkout broke')).toMatchObject({ releaseId: 'rel_abc' });
    expect(ok('/svc\thelp')).toEqual({ kind: 'help' });
  });

  it('is not a command unless the comment starts with /svc', () => {
    for (const body of [
      'please /svc rollback rel_abc',
      ' /svc rollback rel_abc',
      '> /svc rollback rel_abc',
      '/svcrollback rel_abc',
      '/SVC rollback rel_abc',
      'LGTM',
      '',
      '\n/svc help',
    ]) {
      expect(parseCommand(body)).toEqual({ type: 'none' });
    }
  });

  it('rejects unknown commands, flags, duplicates and stray arguments', () => {
    expect(error('/svc')).toMatch(/Missing command/);
    expect(error('/svc deploy')).toMatch(/Unknown command/);
    expect(error('/svc help me')).toMatch(/no arguments/);
    expect(error('/svc rollback')).toMatch(/needs a release id/);
    expect(error('/svc rollback rel_a rel_b')).toMatch(/Unexpected argument/);
    expect(error('/svc rollback rel_a --force')).toMatch(/Unknown flag/);
    expect(error('/svc rollback rel_a -r')).toMatch(/Unknown flag/);
    expect(error('/svc rollback rel_a --restore-data --restore-data')).toMatch(/twice/);
    expect(error('/svc rollback rel_a --restore-data --confirm "x" --confirm "y"')).toMatch(/twice/);
    expect(error('/svc rollback rel_a --confirm "restore shop"')).toMatch(/only goes with/);
    expect(error('/svc rollback rel_a --restore-data --confirm')).toMatch(/needs the phrase/);
    expect(error('/svc rollback rel_a --restore-data --confirm ""')).toMatch(/needs the phrase/);
    expect(error('/svc rollback rel_a --restore-data --confirm "restore shop')).toMatch(/not closed/);
    expect(error('/svc rollback ../etc')).toMatch(/not a release id/);
    expect(error('/svc rollback rel_a;rm')).toMatch(/not a release id/);
  });

  it('keeps the confirmation phrase exactly as typed (the server compares it exactly)', () => {
    expect(ok('/svc rollback rel_a --restore-data --confirm "restore  shop"')).toMatchObject({ confirm: 'restore  shop' });
    expect(ok('/svc rollback rel_a --restore-data --confirm "Restore shop"')).toMatchObject({ confirm: 'Restore shop' });
  });
});

describe('tokenize', () => {
  it('groups quoted words and keeps empty quotes', () => {
    expect(tokenize('a "b c" d')).toEqual(['a', 'b c', 'd']);
    expect(tokenize('--confirm=""')).toEqual(['--confirm=']);
    expect(tokenize('a "b')).toBeNull();
  });
});

describe('commandHelp', () => {
  it('shows the exact phrase for the project', () => {
    expect(commandHelp('shop')).toContain('--confirm "restore shop"');
  });
});
