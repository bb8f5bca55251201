// The epochs of a hosted project are directories `<projectRoot>/recovery/epoch-NNNN/`, one repository
// each (docs/recovery-format.md). A directory without epoch.json is allocated but not yet begun: the app
// begins the epoch when it attaches. Old epochs are never deleted here.
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { projectRoot } from '../../projects/index.js';
import { deriveRecoveryKeys } from '../recovery-keys.js';
import { documentVerifies, epochDocumentSchema, headDocumentSchema, readSignedDocument, repositoryPaths } from '../repository.js';

const EPOCH_DIR = /^epoch-(\d{4,9})$/;

/** What the platform knows about one epoch directory (read from its signed epoch.json and head.json). */
export interface EpochInfo {
  /** Directory name: the platform epoch id. */
  id: string;
  directory: string;
  /** Recovery's own epoch id, or null when the epoch was not begun yet. */
  epochId: string | null;
  createdAt: number | null;
  exportedThrough: number | null;
  headUpdatedAt: number | null;
  /** Both documents authenticated under the project key. */
  verified: boolean;
}

/** `<projectRoot>/recovery`: where a project's epoch directories live. */
export function epochsRoot(dataDir: string, projectId: string): string {
  return join(projectRoot(dataDir, projectId), 'recovery');
}

/** Epoch directory names, oldest first. */
export async function listEpochDirs(root: string): Promise<string[]> {
  const names = await readdir(root).catch(() => [] as string[]);
  return names.filter((name) => EPOCH_DIR.test(name)).sort((a, b) => Number(EPOCH_DIR.exec(a)![1]) - Number(EPOCH_DIR.exec(b)![1]));
}

/** Read (and with the key, authenticate) one epoch directory. Never throws for a damaged file. */
export async function readEpochInfo(root: string, id: string, key: Uint8Array): Promise<EpochInfo> {
  const directory = join(root, id);
  const paths = repositoryPaths(directory);
  const info: EpochInfo = { id, directory, epochId: null, createdAt: null, exportedThrough: null, headUpdatedAt: null, verified: false };
  const epoch = await readSignedDocument(paths.epoch, epochDocumentSchema).catch(() => null);
  if (!epoch) return info;
  info.epochId = epoch.document.epochId;
  info.createdAt = epoch.document.createdAt;
  const keys = deriveRecoveryKeys(key, epoch.document.epochId);
  const epochOk = keys.keyCheck === epoch.document.keyCheck && documentVerifies(epoch.document, epoch.mac, keys.meta);
  const head = await readSignedDocument(paths.head, headDocumentSchema).catch(() => null);
  if (head && epochOk && head.document.epochId === info.epochId && documentVerifies(head.document, head.mac, keys.meta)) {
    info.exportedThrough = head.document.exportedThrough;
    info.headUpdatedAt = head.document.updatedAt;
    info.verified = true;
  }
  return info;
}

/** Every epoch of a project, oldest first. */
export async function readEpochs(root: string, key: Uint8Array): Promise<EpochInfo[]> {
  return Promise.all((await listEpochDirs(root)).map((id) => readEpochInfo(root, id, key)));
}

/**
 * The directory for a new epoch: the newest allocated directory that was never begun (so repeated
 * starts of an app that has not attached yet do not pile up directories), else a new `epoch-NNNN`.
 */
export async function allocateEpochDir(root: string, key: Uint8Array): Promise<EpochInfo> {
  const epochs = await readEpochs(root, key);
  const newest = epochs.at(-1);
  if (newest && newest.epochId === null) return newest;
  await mkdir(root, { recursive: true, mode: 0o700 });
  let next = newest ? Number(EPOCH_DIR.exec(newest.id)![1]) + 1 : 1;
  for (let attempt = 0; attempt < 100; attempt++, next++) {
    const id = `epoch-${String(next).padStart(4, '0')}`;
    try {
      await mkdir(join(root, id), { mode: 0o700 });
      return { id, directory: join(root, id), epochId: null, createdAt: null, exportedThrough: null, headUpdatedAt: null, verified: false };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  throw new Error(`could not allocate an epoch directory in ${root}`);
}
