// How `svc previews` words its answers: the previews table and its limit footer, the settings, and
// the warning shown before previews are given copies of production data. Pure: no I/O, `now` passed in.
import type { z } from 'zod';
import type { Preview, PreviewDataSource, PreviewSettings, previewListResponseSchema } from '../src/previews/contract.js';
import { formatTable, printable } from './format-table.js';
import { relativeTime } from './relative-time.js';

export type PreviewList = z.infer<typeof previewListResponseSchema>;

/** Where the user guide lives; every empty state and warning points there. */
export const PREVIEWS_GUIDE = 'docs/previews.md';

const TITLE_WIDTH = 50;

/** 1_800_000 → "30 minutes", 7_200_000 → "2 hours", 90_000 → "90 seconds". Pure. */
export function durationWords(ms: number): string {
  const [count, unit] = ms % 3_600_000 === 0 ? [ms / 3_600_000, 'hour'] : ms % 60_000 === 0 ? [ms / 60_000, 'minute'] : [Math.round(ms / 1000), 'second'];
  return `${count} ${unit}${count === 1 ? '' : 's'}`;
}

/** "3 of 10 live previews; idle previews stop after 30 minutes". Pure. */
export function previewLimitLine(list: PreviewList): string {
  const idle = list.idleStopMs === 0 ? 'idle previews are never stopped' : `idle previews stop after ${durationWords(list.idleStopMs)}`;
  return `${list.previews.length} of ${list.limit} live preview${list.limit === 1 ? '' : 's'}; ${idle}`;
}

/** The `svc previews` table (newest pull request first) and its footer, or how previews start. Pure. */
export function previewListLines(list: PreviewList, now: number): string[] {
  if (list.previews.length === 0) {
    return [
      'No previews. A preview starts when a pull request is opened against the linked branch of the linked repository',
      `(the svc GitHub App and the preview workflow deploy it); see ${PREVIEWS_GUIDE}.`,
      '',
      previewLimitLine(list),
    ];
  }
  const rows = [...list.previews]
    .sort((a, b) => b.number - a.number)
    .map((p) => [`#${p.number}`, p.state, shortSha(p.headSha), p.url, lastRequest(p, now), shortTitle(p.title)]);
  return [...formatTable(['pr', 'state', 'commit', 'url', 'last request', 'title'], rows), '', previewLimitLine(list)];
}

/** The first seven characters of a commit, as GitHub shows it. Pure. */
export function shortSha(sha: string): string {
  return sha.slice(0, 7);
}

function lastRequest(preview: Preview, now: number): string {
  return preview.lastRequestAt === null ? 'never' : relativeTime(Date.parse(preview.lastRequestAt), now);
}

function shortTitle(title: string): string {
  const clean = printable(title);
  return clean.length > TITLE_WIDTH ? `${clean.slice(0, TITLE_WIDTH - 3)}...` : clean;
}

/** One sentence per data source: what a new preview's database starts as. Pure. */
export function dataSourceSentence(data: PreviewDataSource): string {
  return data === 'production'
    ? "New previews start with a copy of production's database (real user data)."
    : 'New previews start with an empty database; the release runs its migrations on it.';
}

/** `svc previews settings` without --data. Pure. */
export function previewSettingsLines(settings: PreviewSettings): string[] {
  return [
    `Preview data: ${settings.data}`,
    `  ${dataSourceSentence(settings.data)}`,
    ...(settings.data === 'empty' ? [`  Change it with \`svc previews settings --data production\` (read the warning in ${PREVIEWS_GUIDE} first).`] : []),
  ];
}

/**
 * What copying production data into previews means, said before it is switched on: previews hold
 * real user data, show it to anyone with the URL, and run code that has not been merged.
 */
export function productionDataWarning(): string[] {
  return [
    "Warning: with --data production every new preview gets a copy of production's database, which holds real user data.",
    '  - Anyone who has a preview URL sees whatever the app shows from that copy.',
    "  - A preview runs the pull request's code, which has not been reviewed or merged, against that copy.",
    '  - The copy stays until the preview is torn down (pull request closed or merged, or `svc previews delete`).',
    `  Existing previews keep the data they have. See "Data" in ${PREVIEWS_GUIDE}.`,
  ];
}

/** A pull request number as typed (`12` or `#12`); null when it is not one. Pure. */
export function parsePullRequestNumber(text: string): number | null {
  const match = /^#?([1-9][0-9]{0,9})$/.exec(text.trim());
  if (!match) return null;
  const number = Number(match[1]);
  return number <= 1_000_000_000 ? number : null;
}
