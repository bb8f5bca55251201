import { describe, expect, it } from 'vitest';
import { releaseJobSpec, type ReleaseJobInput } from '../../../runner/swarm/job-spec.js';
import { releaseServiceSpec } from '../../../runner/swarm/service-spec.js';
import { swarmJobServiceName } from '../../../runner/swarm/swarm-names.js';
import { NODE, serviceInput, taskInput } from './swarm-fixture.js';

const jobs: ReleaseJobInput[] = [
  { ...taskInput, jobId: 'j1', type: 'migrate' },
  { ...taskInput, jobId: 'j2', type: 'snapshot' },
  { ...taskInput, jobId: 'j3', type: 'restore-snapshot' },
  { ...taskInput, jobId: 'j4', type: 'precheck' },
];

describe('releaseJobSpec', () => {
  it('builds the exact spec of a migration job', () => {
    const spec = releaseJobSpec(jobs[0] as ReleaseJobInput);
    const app = releaseServiceSpec(serviceInput).TaskTemplate;
    const labels = {
      'svc.project': 'prj_1',
      'svc.release': 'rel_1',
      'svc.generation': '7',
      'svc.digest': 'b'.repeat(64),
      'svc.role': 'job',
      'svc.job': 'migrate',
    };
    expect(spec).toEqual({
      Name: swarmJobServiceName('prj_1', 'j1'),
      Labels: labels,
      TaskTemplate: {
        ContainerSpec: {
          ...app.ContainerSpec,
          HealthCheck: undefined,
          Labels: labels,
          Args: ['job', 'j1'],
          Env: app.ContainerSpec.Env.filter((e) => e !== 'GREETING=hi').map((e) => (e === 'PORT=3000' ? 'PORT=0' : e)),
          Secrets: [app.ContainerSpec.Secrets[0]],
        },
        Resources: app.Resources,
        RestartPolicy: { Condition: 'none', Delay: 0, MaxAttempts: 0, Window: 0 },
        Placement: { Constraints: [`node.id==${NODE}`] },
        Networks: [{ Target: 'svc-p-prj_1' }],
        ForceUpdate: 7,
      },
      Mode: { Replicated: { Replicas: 1 } },
      EndpointSpec: { Mode: 'dnsrr', Ports: [] },
    });
    expect('HealthCheck' in spec.TaskTemplate.ContainerSpec).toBe(false);
    expect(spec.UpdateConfig).toBeUndefined();
  });

  it('runs every job once, never restarted, with the project volume on the node that holds it', () => {
    const app = releaseServiceSpec(serviceInput).TaskTemplate;
    for (const job of jobs) {
      const spec = releaseJobSpec(job);
      expect(spec.Mode).toEqual({ Replicated: { Replicas: 1 } });
      expect(spec.TaskTemplate.RestartPolicy.Condition).toBe('none');
      expect(spec.TaskTemplate.Placement).toEqual(app.Placement);
      expect(spec.TaskTemplate.ContainerSpec.Mounts.filter((m) => m.Type === 'volume')).toEqual(app.ContainerSpec.Mounts.filter((m) => m.Type === 'volume'));
      expect(spec.TaskTemplate.ContainerSpec.Mounts).toEqual(app.ContainerSpec.Mounts);
      expect(spec.TaskTemplate.ContainerSpec.ReadOnly).toBe(true);
      expect(spec.TaskTemplate.ContainerSpec.CapabilityDrop).toEqual(['ALL']);
      expect(spec.Labels['svc.job']).toBe(job.type);
    }
    expect(new Set(jobs.map((j) => releaseJobSpec(j).Name)).size).toBe(jobs.length);
  });

  it('names only the job id: paths, values, input and output travel through the release endpoint', () => {
    for (const job of jobs) expect(releaseJobSpec(job).TaskTemplate.ContainerSpec.Args).toEqual(['job', job.jobId]);
  });

  it('refuses unknown types and odd ids', () => {
    const base = jobs[1] as ReleaseJobInput;
    expect(() => releaseJobSpec({ ...base, type: 'shell' as ReleaseJobInput['type'] })).toThrow(/Unknown job type/);
    expect(() => releaseJobSpec({ ...base, jobId: 'a/b' })).toThrow(/job id/);
    expect(() => releaseJobSpec({ ...base, jobId: 'a b' })).toThrow(/job id/);
  });
});
