// The two Secrets of a project's release, the one place a value goes to the cluster (stringData, stored
// by the API server, encrypted at rest only if the cluster is set up so). Deployments and Jobs only
// ever reference them. Pure.
import type { ISecret } from 'kubernetes-models/v1/Secret';
import { SvcError } from '../../src/core/errors.js';
import { appSecretName, artifactCredentialName, KUBERNETES_LABELS, labelValue, projectNamespaceName, type CredentialScope } from './kubernetes-names.js';
import { checkSecretNames, CREDENTIAL_KEY, projectLabels } from './pod-template.js';
import { checkProjectId } from './release-input.js';

/**
 * A generation's app secrets, read by the pods through `envFrom`. Immutable: new values are a new
 * generation with a new Secret, so a changed secret rolls the Deployment like any other change, and
 * the old Secret is deleted once nothing runs that generation.
 */
export function appSecret(projectId: string, generation: number, values: Readonly<Record<string, string>>): ISecret {
  checkProjectId(projectId);
  checkSecretNames(Object.keys(values));
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    immutable: true,
    metadata: {
      name: appSecretName(generation),
      namespace: projectNamespaceName(projectId),
      labels: { ...projectLabels(projectId), [KUBERNETES_LABELS.generation]: String(generation), [KUBERNETES_LABELS.secret]: 'env' },
      annotations: { [KUBERNETES_LABELS.project]: projectId },
    },
    stringData: { ...values },
  };
}

/** Whom a credential is for: the release's pods, or one job run (of `releaseId`). */
export interface CredentialOwner {
  projectId: string;
  releaseId: string;
  scope: CredentialScope;
  /** The job id for scope `job`; ignored for `release`. */
  jobId?: string;
}

/**
 * An artifact credential, mounted as `/run/secrets/svc.credential` for the entrypoint. The control
 * plane accepts it for this release's artifact only and until `expiresAt`. A release's credential is
 * renewed in place while the release runs (a mounted Secret reaches running pods, so a pod rescheduled
 * later still fetches) and deleted when the release stops; a job's is deleted with its Job.
 */
export function artifactCredentialSecret(owner: CredentialOwner, credential: string, expiresAt: Date): ISecret {
  const { projectId, releaseId, scope } = owner;
  checkProjectId(projectId);
  const id = scope === 'release' ? releaseId : owner.jobId;
  if (id === undefined) throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'A job credential needs its job id');
  if (credential === '' || /[\s]/.test(credential)) throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'The artifact credential must be a non-empty token');
  if (Number.isNaN(expiresAt.getTime())) throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'The artifact credential needs an expiry');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    type: 'Opaque',
    metadata: {
      name: artifactCredentialName(scope, id),
      namespace: projectNamespaceName(projectId),
      labels: { ...projectLabels(projectId), [KUBERNETES_LABELS.release]: labelValue(releaseId), [KUBERNETES_LABELS.secret]: `artifact-${scope}` },
      annotations: {
        [KUBERNETES_LABELS.project]: projectId,
        [KUBERNETES_LABELS.release]: releaseId,
        ...(scope === 'job' ? { 'svc.job-id': id } : {}),
        'svc.expires-at': expiresAt.toISOString(),
      },
    },
    stringData: { [CREDENTIAL_KEY]: credential },
  };
}
