import { describe, expect, it } from 'vitest';
import { isSvcError } from '../../../src/core/errors.js';
import { healthProbes, releaseDeployment } from '../../../runner/kubernetes/deployment.js';
import { projectManifests } from '../../../runner/kubernetes/project-manifests.js';
import { releaseService, SERVICE_PORT } from '../../../runner/kubernetes/service.js';
import { appInput, DIGEST, IMAGE, manifestsInput } from './kubernetes-fixture.js';

const NS = 'svc-ph-prj-1-2e22bfaba53363e4f5da';

function container(deployment = releaseDeployment(appInput)) {
  const c = deployment.spec?.template.spec?.containers[0];
  if (c === undefined) throw new Error('no container');
  return c;
}

function code(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (error) {
    return isSvcError(error) ? error.code : 'not an SvcError';
  }
  return undefined;
}

describe('releaseDeployment', () => {
  it('labels the Deployment and its pods with project, role, release and generation; selects by project and role only', () => {
    const d = releaseDeployment(appInput);
    const labels = { 'app.kubernetes.io/managed-by': 'svc', 'svc.project': 'prj_1', 'svc.role': 'app', 'svc.release': 'rel_1', 'svc.generation': '7' };
    expect(d.metadata).toEqual({ name: 'app', namespace: NS, labels, annotations: { 'svc.project': 'prj_1', 'svc.release': 'rel_1', 'svc.digest': DIGEST } });
    expect(d.spec?.template.metadata?.labels).toEqual(labels);
    expect(d.spec?.selector).toEqual({ matchLabels: { 'app.kubernetes.io/managed-by': 'svc', 'svc.project': 'prj_1', 'svc.role': 'app' } });
    expect(d.spec?.replicas).toBe(1);
    expect(releaseDeployment({ ...appInput, replicas: 3 }).spec?.replicas).toBe(3);
  });

  it('rolls one new pod at a time and removes an old one only after it is ready', () => {
    const spec = releaseDeployment(appInput).spec;
    expect(spec?.strategy).toEqual({ type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } });
    expect(spec?.progressDeadlineSeconds).toBe(30);
  });

  it('probes the health path: readiness, a startup probe for the whole health timeout, liveness', () => {
    const c = container();
    const httpGet = { path: '/healthz', port: 'http', scheme: 'HTTP' };
    expect(c.readinessProbe).toEqual({ httpGet, periodSeconds: 2, timeoutSeconds: 2, successThreshold: 1, failureThreshold: 3 });
    expect(c.startupProbe).toEqual({ httpGet, periodSeconds: 2, timeoutSeconds: 2, successThreshold: 1, failureThreshold: 15 });
    expect(c.livenessProbe).toEqual({ httpGet, periodSeconds: 10, timeoutSeconds: 2, successThreshold: 1, failureThreshold: 3 });
    expect(c.ports).toEqual([{ name: 'http', containerPort: 3000, protocol: 'TCP' }]);
    expect(healthProbes({ path: '/up?deep=1', timeoutMs: 1 }).startupProbe.failureThreshold).toBe(1);
  });

  it('hardens pod and container like the podman runner', () => {
    const d = releaseDeployment(appInput);
    const pod = d.spec?.template.spec;
    expect(pod?.automountServiceAccountToken).toBe(false);
    expect(pod?.enableServiceLinks).toBe(false);
    expect(pod?.shareProcessNamespace).toBe(true);
    expect(pod?.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 10001,
      runAsGroup: 10001,
      fsGroup: 10001,
      fsGroupChangePolicy: 'OnRootMismatch',
      seccompProfile: { type: 'RuntimeDefault' },
    });
    const c = container(d);
    expect(c.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 10001,
      runAsGroup: 10001,
      readOnlyRootFilesystem: true,
      allowPrivilegeEscalation: false,
      privileged: false,
      capabilities: { drop: ['ALL'] },
      seccompProfile: { type: 'RuntimeDefault' },
    });
    // podman's 512m is 512 MiB; Kubernetes' `512m` would be half a byte.
    expect(c.resources).toEqual({ limits: { cpu: '1', memory: '512Mi' }, requests: { cpu: '1', memory: '512Mi' } });
    expect(
      releaseDeployment({ ...appInput, limits: { ...appInput.limits, cpus: '0.5', memory: '1g' } }).spec?.template.spec?.containers[0]?.resources?.limits,
    ).toEqual({ cpu: '500m', memory: '1Gi' });
    expect(pod?.terminationGracePeriodSeconds).toBe(15);
    expect(c.lifecycle).toEqual({ preStop: { sleep: { seconds: 5 } } });
  });

  it('fetches the release through the entrypoint by digest into /app, with the data claim at /data and the credential file', () => {
    const d = releaseDeployment(appInput);
    const c = container(d);
    expect(c.image).toBe(IMAGE);
    expect(c.command).toEqual(['/usr/bin/node', '/svc/swarm-entrypoint.mjs']);
    expect(c.args).toEqual(['serve', 'dist/server.mjs']);
    expect(c.workingDir).toBe('/app');
    expect(c.volumeMounts).toEqual([
      { name: 'data', mountPath: '/data' },
      { name: 'release', mountPath: '/app' },
      { name: 'tmp', mountPath: '/tmp' },
      { name: 'credential', mountPath: '/run/secrets', readOnly: true },
    ]);
    expect(d.spec?.template.spec?.volumes).toEqual([
      { name: 'data', persistentVolumeClaim: { claimName: 'data' } },
      { name: 'release', emptyDir: { sizeLimit: '256Mi' } },
      { name: 'tmp', emptyDir: { medium: 'Memory', sizeLimit: '64Mi' } },
      {
        name: 'credential',
        secret: { secretName: 'artifacth-rel-1-7ed176c51129b5fba4f9', items: [{ key: 'credential', path: 'svc.credential' }], defaultMode: 0o440 },
      },
    ]);
    const env = Object.fromEntries((c.env ?? []).map((e) => [e.name, e.value]));
    expect(env).toMatchObject({
      GREETING: 'hi',
      PORT: '3000',
      SVC_RELEASE_DIGEST: DIGEST,
      SVC_ARTIFACT_URL: appInput.artifactUrl,
      SVC_DATABASE_PATH: '/data/db/app.db',
      HOME: '/data',
    });
    expect(c.envFrom).toEqual([{ secretRef: { name: 'env-g7' } }]);
    expect(releaseDeployment({ ...appInput, secretNames: [] }).spec?.template.spec?.containers[0]?.envFrom).toBeUndefined();
  });

  it('keeps every pod of a project on one node (the ReadWriteOnce claim)', () => {
    expect(releaseDeployment(appInput).spec?.template.spec?.affinity).toEqual({
      podAffinity: {
        requiredDuringSchedulingIgnoredDuringExecution: [
          { labelSelector: { matchLabels: { 'app.kubernetes.io/managed-by': 'svc', 'svc.project': 'prj_1' } }, topologyKey: 'kubernetes.io/hostname' },
        ],
      },
    });
  });

  it('a canary is a second Deployment and Service of its own role beside the release', () => {
    const objects = projectManifests(manifestsInput);
    const deployments = objects.filter((o) => o.kind === 'Deployment');
    expect(deployments.map((d) => [d.metadata?.name, d.spec?.template.metadata?.labels?.['svc.release'], d.spec?.selector.matchLabels?.['svc.role']])).toEqual([
      ['app', 'rel_1', 'app'],
      ['canary', 'rel_2', 'canary'],
    ]);
    expect(objects.filter((o) => o.kind === 'Service').map((s) => [s.metadata?.name, s.spec?.selector])).toEqual([
      ['app', { 'app.kubernetes.io/managed-by': 'svc', 'svc.project': 'prj_1', 'svc.role': 'app' }],
      ['canary', { 'app.kubernetes.io/managed-by': 'svc', 'svc.project': 'prj_1', 'svc.role': 'canary' }],
    ]);
    expect(objects.map((o) => `${o.kind}/${o.metadata?.name}`)).toEqual([
      `Namespace/${NS}`,
      'NetworkPolicy/svc-project',
      'PersistentVolumeClaim/data',
      'Secret/env-g7',
      'Secret/artifacth-rel-1-7ed176c51129b5fba4f9',
      'Deployment/app',
      'Service/app',
      'Secret/env-g8',
      'Secret/artifacth-rel-2-18e3671e78d6ae874497',
      'Deployment/canary',
      'Service/canary',
    ]);
    expect(() => projectManifests({ ...manifestsInput, canary: { ...manifestsInput.release, generation: 8, port: 3001 } })).toThrow(/port/);
    expect(() => projectManifests({ ...manifestsInput, canary: { ...manifestsInput.release } })).toThrow(/generation/);
  });

  it('serves the pods on a ClusterIP Service by the named port', () => {
    expect(releaseService('prj_1', 'app').spec).toEqual({
      type: 'ClusterIP',
      selector: { 'app.kubernetes.io/managed-by': 'svc', 'svc.project': 'prj_1', 'svc.role': 'app' },
      ports: [{ name: 'http', protocol: 'TCP', port: SERVICE_PORT, targetPort: 'http' }],
      publishNotReadyAddresses: false,
      sessionAffinity: 'None',
    });
  });

  it('refuses tags, root, bad ports, replicas, health paths, entries and env or secret names that shadow the platform', () => {
    expect(code(() => releaseDeployment({ ...appInput, image: 'registry.example.com/svc-node:20' }))).toBe('SVC_CONTAINER_INVALID_SPEC');
    expect(code(() => releaseDeployment({ ...appInput, image: `sha256:${'a'.repeat(64)}` }))).toBe('SVC_CONTAINER_INVALID_SPEC');
    expect(code(() => releaseDeployment({ ...appInput, limits: { ...appInput.limits, user: '0:0' } }))).toBe('SVC_CONTAINER_INVALID_SPEC');
    expect(code(() => releaseDeployment({ ...appInput, limits: { ...appInput.limits, cpus: '0.0001' } }))).toBe('SVC_CONTAINER_INVALID_SPEC');
    expect(code(() => releaseDeployment({ ...appInput, port: 0 }))).toBe('SVC_CONTAINER_INVALID_SPEC');
    expect(code(() => releaseDeployment({ ...appInput, replicas: 0 }))).toBe('SVC_CONTAINER_INVALID_SPEC');
    expect(code(() => releaseDeployment({ ...appInput, health: { path: 'healthz', timeoutMs: 1000 } }))).toBe('SVC_CONTAINER_INVALID_SPEC');
    expect(code(() => releaseDeployment({ ...appInput, health: { path: '/a b', timeoutMs: 1000 } }))).toBe('SVC_CONTAINER_INVALID_SPEC');
    expect(code(() => releaseDeployment({ ...appInput, artifactUrl: 'http://svc.example.com/a' }))).toBe('SVC_CONTAINER_INVALID_SPEC');
    expect(code(() => releaseDeployment({ ...appInput, artifactUrl: 'https://user:pw@svc.example.com/a' }))).toBe('SVC_CONTAINER_INVALID_SPEC');
    expect(code(() => releaseDeployment({ ...appInput, databaseFile: '../etc/passwd' }))).toBe('SVC_CONTAINER_INVALID_SPEC');
    expect(code(() => releaseDeployment({ ...appInput, entry: '/etc/passwd.js' }))).toBe('SVC_VALIDATION');
    for (const name of ['PORT', 'SVC_PROJECT_ID', 'SVC_ARTIFACT_URL', 'NODE_OPTIONS', 'PATH', 'LD_PRELOAD', 'a-b']) {
      expect(
        code(() => releaseDeployment({ ...appInput, secretNames: [name] })),
        name,
      ).toBe('SVC_VALIDATION');
    }
    expect(code(() => releaseDeployment({ ...appInput, secretNames: ['A', 'A'] }))).toBe('SVC_VALIDATION');
    expect(code(() => releaseDeployment({ ...appInput, secretNames: ['SVC_BUCKET_KEY'] }))).toBeUndefined();
    for (const name of ['PORT', 'HOME', 'NODE_OPTIONS', 'SVC_X'])
      expect(
        code(() => releaseDeployment({ ...appInput, env: { [name]: 'x' } })),
        name,
      ).toBe('SVC_VALIDATION');
  });
});
