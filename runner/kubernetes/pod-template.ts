// The pod every svc workload in a cluster shares, as data: the podman runner's hardening in
// Kubernetes' words (non-root numeric user, read-only root, no privilege escalation, no capabilities,
// RuntimeDefault seccomp, CPU and memory limits, a memory-backed /tmp), the release fetched by digest by
// the base image's entrypoint into an emptyDir at /app, the project's claim at /data, the per-release
// artifact credential as a mounted Secret, app secrets by reference (envFrom). Pure.
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IPodTemplateSpec } from 'kubernetes-models/v1/PodTemplateSpec';
import { SvcError } from '../../src/core/errors.js';
import { isReservedEnvName } from '../app-command.js';
import { isPassableSecretName } from '../container/podman-args.js';
import { SANDBOX_DATA_DIR, SANDBOX_RELEASE_DIR } from '../sandbox-layout.js';
import { SWARM_CREDENTIAL_FILE, SWARM_ENTRYPOINT } from '../swarm/swarm-task-template.js';
import { taskPlatformEnv, TASK_PLATFORM_ENV_NAMES } from '../swarm/task-platform-env.js';
import { appSecretName, KUBERNETES_LABELS, labelValue, MANAGED_BY, OBJECT_NAMES } from './kubernetes-names.js';
import { cpuQuantity, sizeQuantity, wholeSeconds } from './kubernetes-quantities.js';
import { checkReleaseInput, podUser, type KubernetesReleaseInput } from './release-input.js';

/** Where the entrypoint reads its credential file (the path swarm mounts secrets at). */
export const SECRETS_DIR = '/run/secrets';
/** The key of the credential inside its Secret. */
export const CREDENTIAL_KEY = 'credential';
/** Seconds a serving pod keeps answering after it was taken out of its Service, before SIGTERM. */
export const PRESTOP_SLEEP_SECONDS = 5;

export type WorkloadRole = 'app' | 'canary' | 'job';

/** Labels that pick a project's pods of one role (a Deployment's selector, a Service's selector). */
export function selectorLabels(projectId: string, role: WorkloadRole): Record<string, string> {
  return { [KUBERNETES_LABELS.managedBy]: MANAGED_BY, [KUBERNETES_LABELS.project]: labelValue(projectId), [KUBERNETES_LABELS.role]: role };
}

/** Labels on every object of a project (values may be hashed; the annotations carry the exact ids). */
export function projectLabels(projectId: string): Record<string, string> {
  return { [KUBERNETES_LABELS.managedBy]: MANAGED_BY, [KUBERNETES_LABELS.project]: labelValue(projectId) };
}

/** Labels of one release's objects and pods: the generation tells the new template's pods from the old. */
export function releaseLabels(input: KubernetesReleaseInput, role: WorkloadRole): Record<string, string> {
  return {
    ...selectorLabels(input.projectId, role),
    [KUBERNETES_LABELS.release]: labelValue(input.releaseId),
    [KUBERNETES_LABELS.generation]: String(input.generation),
  };
}

/** The exact ids and the digest (64 characters: too long for a label value). */
export function releaseAnnotations(input: KubernetesReleaseInput): Record<string, string> {
  return { [KUBERNETES_LABELS.project]: input.projectId, [KUBERNETES_LABELS.release]: input.releaseId, [KUBERNETES_LABELS.digest]: input.releaseDigest };
}

export interface PodExtras {
  role: WorkloadRole;
  /** Arguments after the entrypoint (`serve <entry>`, `job <jobId>`). */
  args: string[];
  /** The port the app listens on (0 for jobs: no port, no probes). */
  port: number;
  /** Public env from the deploy file (in the artifact anyway), as plain values. */
  env: Readonly<Record<string, string>>;
  /** Names of the generation's app secrets: the pod reads them all from the generation's Secret. */
  secretNames: readonly string[];
  /** The Secret with the artifact credential (`artifactCredentialName`): the release's, or the job run's own. */
  credentialSecret: string;
  probes?: Pick<IContainer, 'readinessProbe' | 'livenessProbe' | 'startupProbe'>;
  extraLabels?: Record<string, string>;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** What the platform sets in every pod (the swarm task's values); app env and secrets may never stand in for any of it. */
export const PLATFORM_ENV_NAMES = TASK_PLATFORM_ENV_NAMES;
const platformNames: ReadonlySet<string> = new Set(PLATFORM_ENV_NAMES);

/**
 * Secret names the pod may receive: the rules of the other runners (platform `SVC_*` values or names
 * no runner reserves; never NODE_OPTIONS, which the entrypoint's own node would obey), none twice, none
 * taking a platform value's name.
 */
export function checkSecretNames(names: readonly string[]): void {
  const seen = new Set<string>();
  for (const name of names) {
    const platform = name.startsWith('SVC_') && ENV_NAME.test(name);
    if (!platform && !isPassableSecretName(name)) throw new SvcError('SVC_VALIDATION', `secret name ${name} is invalid or reserved`);
    if (platformNames.has(name)) throw new SvcError('SVC_VALIDATION', `secret name ${name} is reserved by the platform`);
    if (seen.has(name)) throw new SvcError('SVC_VALIDATION', `secret name ${name} is given twice`);
    seen.add(name);
  }
}

/** The hardened pod template shared by the app Deployment, the canary and every Job. */
export function releasePodTemplate(input: KubernetesReleaseInput, extras: PodExtras): IPodTemplateSpec {
  checkReleaseInput(input);
  checkSecretNames(extras.secretNames);
  const { uid, gid } = podUser(input.limits);
  const env = Object.entries(extras.env).map(([name, value]) => {
    if (!ENV_NAME.test(name) || isReservedEnvName(name) || name === 'PATH' || name === 'HOME')
      throw new SvcError('SVC_VALIDATION', `env name ${name} is invalid or reserved`);
    return { name, value };
  });
  const serving = extras.role !== 'job';
  // Fresh objects each time: a caller may change one pod's spec without touching another's.
  const seccompProfile = (): { type: 'RuntimeDefault' } => ({ type: 'RuntimeDefault' });
  const container: IContainer = {
    name: serving ? 'app' : 'job',
    image: input.image,
    imagePullPolicy: 'IfNotPresent',
    command: [...SWARM_ENTRYPOINT],
    args: extras.args,
    workingDir: SANDBOX_RELEASE_DIR,
    // Explicit env wins over envFrom in Kubernetes; checkSecretNames refuses such clashes anyway.
    env: [...env, ...Object.entries(taskPlatformEnv({ ...input, port: extras.port })).map(([name, value]) => ({ name, value }))],
    ...(extras.secretNames.length === 0 ? {} : { envFrom: [{ secretRef: { name: appSecretName(input.generation) } }] }),
    ...(serving ? { ports: [{ name: 'http', containerPort: extras.port, protocol: 'TCP' as const }] } : {}),
    resources: {
      limits: { cpu: cpuQuantity(input.limits.cpus), memory: sizeQuantity(input.limits.memory) },
      requests: { cpu: cpuQuantity(input.limits.cpus), memory: sizeQuantity(input.limits.memory) },
    },
    securityContext: {
      runAsNonRoot: true,
      runAsUser: uid,
      runAsGroup: gid,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      privileged: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: seccompProfile(),
    },
    volumeMounts: [
      { name: 'data', mountPath: SANDBOX_DATA_DIR },
      { name: 'release', mountPath: SANDBOX_RELEASE_DIR },
      { name: 'tmp', mountPath: '/tmp' },
      { name: 'credential', mountPath: SECRETS_DIR, readOnly: true },
    ],
    // A job writes its answer there; a crashed app's last log lines land there instead.
    terminationMessagePolicy: serving ? 'FallbackToLogsOnError' : 'File',
    ...(serving ? { lifecycle: { preStop: { sleep: { seconds: PRESTOP_SLEEP_SECONDS } } } } : {}),
    ...extras.probes,
  };
  return {
    metadata: { labels: { ...releaseLabels(input, extras.role), ...extras.extraLabels }, annotations: releaseAnnotations(input) },
    spec: {
      automountServiceAccountToken: false,
      // No `<SERVICE>_HOST` variables: an app learns nothing of what else runs in its namespace.
      enableServiceLinks: false,
      // The pod's pause process becomes PID 1 and reaps orphans, as podman's --init and swarm's Init do.
      shareProcessNamespace: true,
      restartPolicy: serving ? 'Always' : 'Never',
      terminationGracePeriodSeconds: wholeSeconds(input.stopGraceMs) + (serving ? PRESTOP_SLEEP_SECONDS : 0),
      securityContext: {
        runAsNonRoot: true,
        runAsUser: uid,
        runAsGroup: gid,
        // The kubelet hands the claim and the credential file to this group (podman's runner chowns).
        fsGroup: gid,
        fsGroupChangePolicy: 'OnRootMismatch',
        seccompProfile: seccompProfile(),
      },
      // A ReadWriteOnce claim is usable on one node only: every pod of the project goes where the others are.
      affinity: {
        podAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: [
            { labelSelector: { matchLabels: projectLabels(input.projectId) }, topologyKey: 'kubernetes.io/hostname' },
          ],
        },
      },
      containers: [container],
      volumes: [
        { name: 'data', persistentVolumeClaim: { claimName: OBJECT_NAMES.data } },
        { name: 'release', emptyDir: { sizeLimit: sizeQuantity(input.releaseSize) } },
        { name: 'tmp', emptyDir: { medium: 'Memory', sizeLimit: sizeQuantity(input.limits.tmpfsSize) } },
        {
          name: 'credential',
          secret: { secretName: extras.credentialSecret, items: [{ key: CREDENTIAL_KEY, path: SWARM_CREDENTIAL_FILE }], defaultMode: 0o440 },
        },
      ],
    },
  };
}
