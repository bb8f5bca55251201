import { describe, expect, it } from 'vitest';
import { releaseDeployment } from '../../../runner/kubernetes/deployment.js';
import { JOB_TTL_SECONDS, JOB_TYPES, releaseJob, type KubernetesJobInput } from '../../../runner/kubernetes/job.js';
import { appInput, jobInput } from './kubernetes-fixture.js';

const runs: KubernetesJobInput[] = JOB_TYPES.map((type, i) => ({ ...jobInput, jobId: `j${i + 1}`, type }));

describe('releaseJob', () => {
  it('makes one Job per ReleaseJob type, each named by its job id and labelled with its type', () => {
    expect([...JOB_TYPES].sort()).toEqual(['database-footprint', 'migrate', 'precheck', 'restore-snapshot', 'snapshot', 'unapplied-migrations']);
    for (const run of runs) {
      const job = releaseJob(run);
      expect(job.metadata?.name).toBe(`job-${run.jobId}`);
      expect(job.metadata?.labels).toMatchObject({
        'svc.role': 'job',
        'svc.job': run.type,
        'svc.project': 'prj_1',
        'svc.release': 'rel_1',
        'svc.generation': '7',
      });
      expect(job.spec?.template.metadata?.labels).toMatchObject({ 'svc.role': 'job', 'svc.job': run.type });
      expect(job.metadata?.annotations?.['svc.job-id']).toBe(run.jobId);
      // The pod learns only its job id; the description (paths, values) comes from the release endpoint.
      expect(job.spec?.template.spec?.containers[0]?.args).toEqual(['job', run.jobId]);
    }
  });

  it('runs once, never retried, kept a while after it finished, with an optional deadline', () => {
    const spec = releaseJob(jobInput).spec;
    expect(spec).toMatchObject({ completions: 1, parallelism: 1, backoffLimit: 0, ttlSecondsAfterFinished: JOB_TTL_SECONDS });
    expect(spec?.activeDeadlineSeconds).toBeUndefined();
    expect(spec?.template.spec?.restartPolicy).toBe('Never');
    expect(releaseJob({ ...jobInput, timeoutMs: 90_500, ttlSecondsAfterFinished: 60 }).spec).toMatchObject({
      activeDeadlineSeconds: 91,
      ttlSecondsAfterFinished: 60,
    });
  });

  it("shares the app pods' claim, node, image and hardening; no port, probes, app env or app secrets; its own credential", () => {
    const app = releaseDeployment(appInput).spec?.template.spec;
    for (const run of runs) {
      const pod = releaseJob(run).spec?.template.spec;
      const c = pod?.containers[0];
      const a = app?.containers[0];
      expect(pod?.securityContext).toEqual(app?.securityContext);
      expect(pod?.affinity).toEqual(app?.affinity);
      expect(pod?.automountServiceAccountToken).toBe(false);
      expect(pod?.volumes?.slice(0, 3)).toEqual(app?.volumes?.slice(0, 3));
      expect(pod?.volumes?.[3]).toEqual({
        name: 'credential',
        secret: { secretName: `artifact-job-${run.jobId}`, items: [{ key: 'credential', path: 'svc.credential' }], defaultMode: 0o440 },
      });
      expect(c?.securityContext).toEqual(a?.securityContext);
      expect(c?.resources).toEqual(a?.resources);
      expect(c?.volumeMounts).toEqual(a?.volumeMounts);
      expect(c?.image).toBe(a?.image);
      expect(c?.command).toEqual(a?.command);
      expect(c?.ports).toBeUndefined();
      expect(c?.readinessProbe ?? c?.livenessProbe ?? c?.startupProbe).toBeUndefined();
      expect(c?.envFrom).toBeUndefined();
      expect(c?.env?.find((e) => e.name === 'GREETING')).toBeUndefined();
      expect(c?.env?.find((e) => e.name === 'PORT')?.value).toBe('0');
      expect(c?.terminationMessagePolicy).toBe('File');
      expect(pod?.terminationGracePeriodSeconds).toBe(10);
    }
  });

  it('refuses unknown types, odd job ids and TTLs', () => {
    expect(() => releaseJob({ ...jobInput, type: 'shell' as never })).toThrow(/Unknown job type/);
    expect(() => releaseJob({ ...jobInput, ttlSecondsAfterFinished: -1 })).toThrow(/TTL/);
    expect(() => releaseJob({ ...jobInput, jobId: 'a/b' })).toThrow(/job id/);
    expect(releaseJob({ ...jobInput, jobId: 'Job_Long_'.repeat(10) }).metadata?.name).toMatch(/^jobh-job-long-job-long-job-lo-[0-9a-f]{20}$/);
  });
});
