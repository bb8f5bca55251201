// What every pod of one release needs, the same facts the swarm data layer takes, checked once. Pure.
import { SvcError } from '../../src/core/errors.js';
import type { ContainerLimits } from '../container/podman-args.js';

/** Everything a pod of one release needs; no secret value anywhere. */
export interface KubernetesReleaseInput {
  projectId: string;
  releaseId: string;
  /** Deploy generation: labels pods so svc tells the new template's pods from the old ones. */
  generation: number;
  /** SHA-256 (lowercase hex) of the release artifact the entrypoint fetches and verifies. */
  releaseDigest: string;
  /** The base image with the entrypoint, pinned by digest (`name@sha256:<hex>`), never a tag. */
  image: string;
  /** The control plane URL the entrypoint fetches the artifact from (https, or http to an in-cluster service). */
  artifactUrl: string;
  /** The project database inside the data volume, relative (e.g. `db/app.db`). */
  databaseFile: string;
  /** The podman runner's limits (`defaultContainerLimits`), converted to Kubernetes quantities. */
  limits: ContainerLimits;
  /** Size of the emptyDir at /app the entrypoint extracts the release into (`256m`). */
  releaseSize: string;
  stopGraceMs: number;
}

const ID = /^[A-Za-z0-9_.-]{1,128}$/;
const HEX_DIGEST = /^[0-9a-f]{64}$/;
// A registry reference with a digest: Kubernetes needs a repository name, a bare sha256:… is not an image.
const DIGEST_IMAGE = /^[a-z0-9][a-z0-9._/:-]*@sha256:[0-9a-f]{64}$/;
const RELATIVE_FILE = /^(?!\/)(?!.*(?:^|\/)\.\.(?:\/|$))[A-Za-z0-9_.\-/]+$/;

function invalid(message: string): SvcError {
  return new SvcError('SVC_CONTAINER_INVALID_SPEC', message);
}

/** https anywhere; plain http only to an in-cluster service name, never with credentials in the URL. */
export function checkArtifactUrl(value: string): URL {
  const url = new URL(value);
  const inCluster = /\.svc(?:\.cluster\.local)?$/.test(url.hostname);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && inCluster))
    throw invalid('The artifact URL must be https (http only to an in-cluster *.svc name)');
  if (url.username !== '' || url.password !== '') throw invalid('The artifact URL may not carry credentials');
  return url;
}

/** uid and gid of the numeric non-root `uid:gid` the pods run as. */
export function podUser(limits: ContainerLimits): { uid: number; gid: number } {
  const match = /^(\d+):(\d+)$/.exec(limits.user);
  const uid = Number(match?.[1]);
  const gid = Number(match?.[2]);
  if (match === null || uid === 0 || gid === 0 || uid > 2 ** 31 - 1 || gid > 2 ** 31 - 1)
    throw invalid('The container user must be a numeric non-root uid:gid');
  return { uid, gid };
}

export function checkProjectId(projectId: string): void {
  if (!ID.test(projectId)) throw invalid('Project ids must be letters, digits, _ . -');
}

export function checkReleaseInput(input: KubernetesReleaseInput): void {
  checkProjectId(input.projectId);
  if (!ID.test(input.releaseId)) throw invalid('Release ids must be letters, digits, _ . -');
  if (!Number.isSafeInteger(input.generation) || input.generation < 1) throw invalid('The generation must be a positive integer');
  if (!HEX_DIGEST.test(input.releaseDigest)) throw invalid('The release digest must be a lowercase hex SHA-256');
  if (!DIGEST_IMAGE.test(input.image)) throw invalid('Pods run only an image pinned by digest (name@sha256:…), never a tag');
  checkArtifactUrl(input.artifactUrl);
  if (!RELATIVE_FILE.test(input.databaseFile)) throw invalid('The database file must be a relative path inside the data volume');
  podUser(input.limits);
  if (!Number.isSafeInteger(input.limits.pids) || input.limits.pids < 1) throw invalid('The pid limit must be a positive integer');
}
