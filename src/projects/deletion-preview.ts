// What deleting a project erases, as the lines `svc project delete` prints and the console's delete
// dialog shows before either asks for the phrase. Pure: counts the caller could read are passed in
// (unknown ones are described without a number); the server still decides and erases.
import { formatBytes } from '../core/format-bytes.js';

/** What the caller knows about the project; every field is optional. */
export interface DeletionFacts {
  databaseBytes?: number;
  releases?: number;
  backups?: number;
  domains?: number;
}

export interface DeletionPreview {
  /** One sentence: what happens. */
  summary: string;
  /** What is lost, one line per kind of data. */
  lost: { label: string; detail: string }[];
  /** What is not touched. */
  untouched: string;
}

function count(n: number | undefined, one: string, many: string): string {
  return n === undefined ? many : `${n} ${n === 1 ? one : many}`;
}

/** The preview of deleting project `slug`. */
export function deletionPreview(slug: string, facts: DeletionFacts = {}): DeletionPreview {
  return {
    summary: `This permanently deletes the project ${slug}: its app stops and everything svc keeps for it is erased.`,
    lost: [
      { label: 'Database', detail: facts.databaseBytes === undefined ? 'the database' : `the database (${formatBytes(facts.databaseBytes)})` },
      {
        label: 'Releases',
        detail: `${count(facts.releases, 'release', 'releases')} with ${facts.releases === 1 ? 'its rollback snapshot' : 'their rollback snapshots'} and recovery points`,
      },
      { label: 'Backups', detail: `${count(facts.backups, 'backup', 'backups')} kept on this platform` },
      {
        label: 'Domains',
        detail: `${count(facts.domains, 'custom domain', 'custom domains')}, which ${facts.domains === 1 ? 'stops' : 'stop'} routing at once`,
      },
      { label: 'Also', detail: 'secrets, logs, metrics and project tokens' },
    ],
    untouched: 'Off-host copies (downloaded backups, external databases, edge certificates) are not erased. The audit history keeps a record of the deletion.',
  };
}

/** The preview as plain lines for a terminal. */
export function deletionPreviewLines(preview: DeletionPreview): string[] {
  const width = Math.max(...preview.lost.map((l) => l.label.length)) + 1;
  return [preview.summary, ...preview.lost.map((l) => `  ${`${l.label}:`.padEnd(width + 1)} ${l.detail}`), preview.untouched];
}
