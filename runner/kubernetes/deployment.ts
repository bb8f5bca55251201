// The Deployment of a project's release (`app`) or of its canary (`canary`, a second Deployment beside
// it): one new pod at a time that must turn ready before an old one goes (maxSurge 1, maxUnavailable 0),
// readiness on the app's health path, a startup probe giving it the whole health timeout to come up,
// and a liveness probe for a hung app. Pure.
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IProbe } from 'kubernetes-models/v1/Probe';
import { SvcError } from '../../src/core/errors.js';
import { serveArgs } from '../swarm/swarm-task-template.js';
import { artifactCredentialName, OBJECT_NAMES, projectNamespaceName } from './kubernetes-names.js';
import { wholeSeconds } from './kubernetes-quantities.js';
import { releaseAnnotations, releaseLabels, releasePodTemplate, selectorLabels } from './pod-template.js';
import type { KubernetesReleaseInput } from './release-input.js';

/** Probe timings (the health path and overall timeout come from the release's deploy file). */
export const READINESS_PERIOD_S = 2;
export const PROBE_TIMEOUT_S = 2;
export const READINESS_FAILURES = 3;
export const LIVENESS_PERIOD_S = 10;
export const LIVENESS_FAILURES = 3;
/** Older ReplicaSets kept: svc keeps its own release history and rolls back by applying an older release. */
export const REVISION_HISTORY = 1;

export interface KubernetesAppInput extends KubernetesReleaseInput {
  role: 'app' | 'canary';
  /** `entry` of the release's deploy file. */
  entry: string;
  env: Readonly<Record<string, string>>;
  /** Names of the generation's app secrets (values only ever in the Secret). */
  secretNames: readonly string[];
  /** Port the app listens on inside the pod. */
  port: number;
  health: { path: string; timeoutMs: number };
  /** Default 1. More than one share one node and one SQLite database (see docs/kubernetes.md). */
  replicas?: number;
}

/** Readiness, startup and liveness probes on the app's health path. */
export function healthProbes(health: { path: string; timeoutMs: number }): { readinessProbe: IProbe; startupProbe: IProbe; livenessProbe: IProbe } {
  if (!/^\/[\x21-\x7e]*$/.test(health.path))
    throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'The health path must start with / and hold no spaces or control characters');
  if (!Number.isSafeInteger(health.timeoutMs) || health.timeoutMs <= 0)
    throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'The health timeout must be a positive number of milliseconds');
  const httpGet = (): IProbe['httpGet'] => ({ path: health.path, port: 'http', scheme: 'HTTP' });
  return {
    readinessProbe: {
      httpGet: httpGet(),
      periodSeconds: READINESS_PERIOD_S,
      timeoutSeconds: PROBE_TIMEOUT_S,
      successThreshold: 1,
      failureThreshold: READINESS_FAILURES,
    },
    // Liveness and readiness wait until this succeeds once: failures while the app boots do not count.
    startupProbe: {
      httpGet: httpGet(),
      periodSeconds: READINESS_PERIOD_S,
      timeoutSeconds: PROBE_TIMEOUT_S,
      successThreshold: 1,
      failureThreshold: Math.max(1, Math.ceil(health.timeoutMs / (READINESS_PERIOD_S * 1000))),
    },
    livenessProbe: {
      httpGet: httpGet(),
      periodSeconds: LIVENESS_PERIOD_S,
      timeoutSeconds: PROBE_TIMEOUT_S,
      successThreshold: 1,
      failureThreshold: LIVENESS_FAILURES,
    },
  };
}

/** The Deployment of one release of a project (or of its canary). */
export function releaseDeployment(input: KubernetesAppInput): IDeployment {
  const replicas = input.replicas ?? 1;
  if (!Number.isSafeInteger(replicas) || replicas < 1) throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'Replicas must be a positive integer');
  if (!Number.isSafeInteger(input.port) || input.port < 1 || input.port > 65_535)
    throw new SvcError('SVC_CONTAINER_INVALID_SPEC', 'The app port must be 1–65535');
  const template = releasePodTemplate(input, {
    role: input.role,
    args: serveArgs(input.entry),
    port: input.port,
    env: input.env,
    secretNames: input.secretNames,
    credentialSecret: artifactCredentialName('release', input.releaseId),
    probes: healthProbes(input.health),
  });
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name: input.role === 'app' ? OBJECT_NAMES.app : OBJECT_NAMES.canary,
      namespace: projectNamespaceName(input.projectId),
      labels: releaseLabels(input, input.role),
      annotations: releaseAnnotations(input),
    },
    spec: {
      replicas,
      // The selector is immutable: it names the project and role, never a release.
      selector: { matchLabels: selectorLabels(input.projectId, input.role) },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
      minReadySeconds: 0,
      // A rollout whose new pod is not ready within the health timeout is reported failed (svc's verdict reads it).
      progressDeadlineSeconds: wholeSeconds(input.health.timeoutMs),
      revisionHistoryLimit: REVISION_HISTORY,
      template,
    },
  };
}
