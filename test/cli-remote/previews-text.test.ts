// What `svc previews` prints, without a server: the table and its limit footer, the empty state, the
// settings and the production-data warning, pull request numbers as typed, and the yes/no question
// (answered on a scripted terminal, refused with --json or without one).
import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { confirmAction, isYes } from '../../cli/confirm-action.js';
import type { CliContext } from '../../cli/context.js';
import {
  durationWords,
  parsePullRequestNumber,
  previewLimitLine,
  previewListLines,
  previewSettingsLines,
  productionDataWarning,
  type PreviewList,
} from '../../cli/preview-text.js';
import type { TerminalInput } from '../../cli/terminal-prompt.js';
import { previewListResponseSchema, type Preview } from '../../src/previews/contract.js';

const now = Date.parse('2026-11-26T12:00:00Z');

function preview(number: number, overrides: Partial<Preview> = {}): Preview {
  return {
    number,
    projectId: `prj_preview_${number}`,
    slug: `pr-${number}--shop`,
    url: `http://pr-${number}--shop.apps.example.com`,
    parentProjectId: 'prj_shop',
    title: `Pull request ${number}`,
    author: 'octocat',
    headRef: `feature-${number}`,
    headSha: `${String(number).repeat(40)}`.slice(0, 40),
    state: 'active',
    releaseId: `rel_${number}`,
    releaseCommitSha: null,
    dataSource: 'empty',
    createdAt: '2026-11-26T10:00:00.000Z',
    updatedAt: '2026-11-26T11:00:00.000Z',
    lastRequestAt: null,
    ...overrides,
  };
}

function list(previews: Preview[], limit = 10, idleStopMs = 1_800_000): PreviewList {
  // Through the contract, so a sample that drifts from the wire shape fails here.
  return previewListResponseSchema.parse({ previews, limit, idleStopMs });
}

describe('svc previews list text', () => {
  it('a table newest pull request first: #n, state, 7-character commit, URL, last request, title; then the limit footer', () => {
    const lines = previewListLines(
      list([
        preview(3, { state: 'sleeping', lastRequestAt: '2026-11-26T11:15:00Z', headSha: 'abcdef0123456789abcdef0123456789abcdef01' }),
        preview(12, { state: 'waiting', title: `A very long title ${'x'.repeat(80)}\u001b[31m` }),
      ]),
      now,
    );
    expect(lines[0]).toMatch(/^PR +STATE +COMMIT +URL +LAST REQUEST +TITLE$/);
    expect(lines[1]).toMatch(/^#12 +waiting +1212121 +http:\/\/pr-12--shop\.apps\.example\.com +never +A very long title x+\.\.\.$/);
    expect(lines[1]).not.toContain('\u001b');
    expect(lines[1]!.endsWith('...')).toBe(true);
    expect(lines[1]!.split('  ').at(-1)!.trim().length).toBe(50);
    expect(lines[2]).toMatch(/^#3 +sleeping +abcdef0 +http:\/\/pr-3--shop\.apps\.example\.com +45 min ago +Pull request 3$/);
    expect(lines.slice(3)).toEqual(['', '2 of 10 live previews; idle previews stop after 30 minutes']);
  });

  it('no previews: how one starts and where the guide is, with the limit', () => {
    const lines = previewListLines(list([], 1, 0), now);
    expect(lines.join(' ')).toMatch(/No previews\. A preview starts when a pull request is opened against the linked branch of the linked repository/);
    expect(lines.join(' ')).toContain('docs/previews.md');
    expect(lines.at(-1)).toBe('0 of 1 live preview; idle previews are never stopped');
  });

  it('idle stop in words', () => {
    expect(durationWords(1_800_000)).toBe('30 minutes');
    expect(durationWords(60_000)).toBe('1 minute');
    expect(durationWords(7_200_000)).toBe('2 hours');
    expect(durationWords(90_000)).toBe('90 seconds');
    expect(previewLimitLine(list([preview(1)], 5, 3_600_000))).toBe('1 of 5 live previews; idle previews stop after 1 hour');
  });

  it('pull request numbers as typed: 12 or #12; anything else is not one', () => {
    expect(parsePullRequestNumber('12')).toBe(12);
    expect(parsePullRequestNumber(' #7 ')).toBe(7);
    for (const bad of ['0', '-1', '1.5', 'abc', '', '#', '12a', '99999999999', '01']) expect(parsePullRequestNumber(bad), bad).toBeNull();
  });
});

describe('svc previews settings text', () => {
  it('says what a new preview starts with, and warns before production data', () => {
    expect(previewSettingsLines({ data: 'empty' })).toEqual([
      'Preview data: empty',
      '  New previews start with an empty database; the release runs its migrations on it.',
      '  Change it with `svc previews settings --data production` (read the warning in docs/previews.md first).',
    ]);
    expect(previewSettingsLines({ data: 'production' })[1]).toContain('real user data');
    const warning = productionDataWarning().join('\n');
    expect(warning).toContain('real user data');
    expect(warning).toContain('Anyone who has a preview URL sees whatever the app shows');
    expect(warning).toContain('has not been reviewed or merged');
  });
});

// A terminal that types `keys` once the question is shown (an outside system: the user's TTY).
function scriptedTerminal(keys: string): TerminalInput & { raw: boolean[] } {
  const events = new EventEmitter();
  const raw: boolean[] = [];
  return {
    raw,
    setRawMode: (mode: boolean) => raw.push(mode),
    on: (event, listener) => events.on(event, listener),
    off: (event, listener) => events.off(event, listener),
    resume: () => setImmediate(() => events.emit('data', keys)),
    pause: () => undefined,
  };
}

function context(options: { json?: boolean; terminal?: TerminalInput }): { ctx: CliContext; asked: () => string } {
  let text = '';
  const stdin = { isTTY: options.terminal !== undefined, terminal: () => options.terminal!, [Symbol.asyncIterator]: async function* () {} };
  const stderr = { write: (chunk: string) => ((text += chunk), true) };
  return { ctx: { json: options.json === true, stdin, stderr } as unknown as CliContext, asked: () => text };
}

describe('confirmAction', () => {
  it('--yes goes on without asking, even without a terminal or with --json', async () => {
    await confirmAction(context({ json: true }).ctx, 'Go?', { yes: true });
    await confirmAction(context({}).ctx, () => Promise.reject(new Error('never built')), { yes: true });
  });

  it('with --json or without a terminal it refuses (SVC_USAGE) and names --yes', async () => {
    await expect(confirmAction(context({ json: true }).ctx, 'Go?', { yes: undefined })).rejects.toMatchObject({ code: 'SVC_USAGE', message: /--json.*--yes/ });
    await expect(confirmAction(context({}).ctx, 'Go?', { yes: false })).rejects.toMatchObject({ code: 'SVC_USAGE', message: /No terminal.*--yes/ });
  });

  it('on a terminal: "y" goes on, anything else stops with nothing changed', async () => {
    const yes = context({ terminal: scriptedTerminal('y\r') });
    await confirmAction(yes.ctx, async () => 'Tear down preview #3?', { yes: undefined });
    expect(yes.asked()).toContain('Tear down preview #3? [y/N] ');
    const no = context({ terminal: scriptedTerminal('\r') });
    await expect(confirmAction(no.ctx, 'Go?', { yes: undefined })).rejects.toMatchObject({ code: 'SVC_USAGE', message: /Not confirmed/ });
    expect(['yes', 'Y', ' y '].every(isYes)).toBe(true);
    expect(['n', 'no', 'yep', ''].some(isYes)).toBe(false);
  });
});
