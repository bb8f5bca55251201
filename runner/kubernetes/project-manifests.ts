// Every standing object of one project, in the order a driver applies them: the namespace first, its
// network policy before any pod exists, the claim, the Secrets the pods reference, then each
// Deployment with its Service (the release, and a canary beside it while one runs). Jobs are one-off
// and made per run (job.ts). Pure.
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IJob } from 'kubernetes-models/batch/v1/Job';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { INamespace } from 'kubernetes-models/v1/Namespace';
import type { IPersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import type { ISecret } from 'kubernetes-models/v1/Secret';
import type { IService } from 'kubernetes-models/v1/Service';
import { SvcError } from '../../src/core/errors.js';
import { releaseDeployment, type KubernetesAppInput } from './deployment.js';
import { projectNamespace } from './namespace.js';
import { projectNetworkPolicy, type NetworkPolicyInput } from './network-policy.js';
import { dataClaim, type DataClaimInput } from './persistent-volume-claim.js';
import { appSecret, artifactCredentialSecret } from './secrets.js';
import { releaseService } from './service.js';

export type KubernetesObject = INamespace | INetworkPolicy | IPersistentVolumeClaim | ISecret | IDeployment | IService | IJob;

/** One release as it serves: the Deployment's input, its secret values and its artifact credential. */
export interface ServingRelease extends Omit<KubernetesAppInput, 'role' | 'secretNames'> {
  /** The generation's app secrets (the Secret is the only place their values go). */
  secretValues: Readonly<Record<string, string>>;
  credential: { token: string; expiresAt: Date };
}

export interface ProjectManifestsInput {
  release: ServingRelease;
  /** A candidate served beside the release to a share of the traffic (svc's ingress splits it). */
  canary?: ServingRelease;
  data: Omit<DataClaimInput, 'projectId'>;
  network: Omit<NetworkPolicyInput, 'projectId' | 'appPort'>;
}

function servingObjects(release: ServingRelease, role: 'app' | 'canary'): KubernetesObject[] {
  const { secretValues, credential, ...app } = release;
  const secretNames = Object.keys(secretValues);
  return [
    ...(secretNames.length === 0 ? [] : [appSecret(release.projectId, release.generation, secretValues)]),
    artifactCredentialSecret({ projectId: release.projectId, releaseId: release.releaseId, scope: 'release' }, credential.token, credential.expiresAt),
    releaseDeployment({ ...app, role, secretNames }),
    releaseService(release.projectId, role),
  ];
}

export function projectManifests(input: ProjectManifestsInput): KubernetesObject[] {
  const { release, canary } = input;
  if (canary !== undefined) {
    if (canary.projectId !== release.projectId)
      throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'A canary belongs to the project of the release it runs beside');
    // The platform sets PORT: one port for every pod of a project, which the policy admits.
    if (canary.port !== release.port) throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'A canary listens on the port of the release it runs beside');
    if (canary.generation === release.generation) throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'A canary is a generation of its own');
  }
  return [
    projectNamespace(release.projectId),
    projectNetworkPolicy({ ...input.network, projectId: release.projectId, appPort: release.port }),
    dataClaim({ ...input.data, projectId: release.projectId }),
    ...servingObjects(release, 'app'),
    ...(canary === undefined ? [] : servingObjects(canary, 'canary')),
  ];
}
