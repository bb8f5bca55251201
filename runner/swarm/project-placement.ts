// Where each project lives in a multi-node swarm. A project's service constraint (`node.id==…`) is
// the truth once its service exists; before that — between the first deploy's first job, which
// creates the volume on the chosen node, and its service — the choice must survive a control-plane
// crash, so it is written to `<state>/placements.json` (atomically) before anything runs there.
// The volume of a worker node is invisible through the manager's API, so it cannot be found later.
import { readFile } from 'node:fs/promises';
import { z } from 'zod';
import { atomicWriteFile } from '../../src/core/atomic-write.js';
import { SvcError } from '../../src/core/errors.js';
import type { EngineClient, SwarmNodeInfo, SwarmServiceInfo } from './engine-client.js';
import { chooseProjectNode, countProjects } from './node-choice.js';
import { SWARM_LABELS, swarmServiceName } from './swarm-names.js';

const placementsSchema = z.object({ version: z.literal(1), projects: z.record(z.string(), z.string()) });

/** The node a service is pinned to (`node.id==…`), if any. */
export function pinnedNode(service: SwarmServiceInfo | null): string | undefined {
  const constraints = (service?.spec as { TaskTemplate?: { Placement?: { Constraints?: string[] } } } | undefined)?.TaskTemplate?.Placement?.Constraints ?? [];
  return constraints.map((c) => /^node\.id==([A-Za-z0-9]+)$/.exec(c)?.[1]).find((id) => id !== undefined);
}

export interface PlacementEngine {
  engine: EngineClient;
  /** Every node of the swarm, as the engine reports it now. */
  nodes(): Promise<SwarmNodeInfo[]>;
  /** A node by id (refused when it left the swarm). */
  node(id: string): Promise<SwarmNodeInfo>;
}

/** The recorded choices, and the choice for a project that has none yet (one at a time). */
export class ProjectPlacements {
  private recorded: Map<string, string> | null = null;
  private choosing: Promise<unknown> = Promise.resolve();

  constructor(private readonly file: string) {}

  /** The node holding the project: its service's, else the recorded choice, else a new choice (recorded first). */
  async nodeOf(swarm: PlacementEngine, projectId: string): Promise<SwarmNodeInfo> {
    const pinned = pinnedNode(await swarm.engine.inspectService(swarmServiceName(projectId, 'app')));
    if (pinned) {
      if ((await this.load()).get(projectId) !== pinned) await this.record(projectId, pinned);
      return swarm.node(pinned);
    }
    const next = this.choosing.then(() => this.choose(swarm, projectId));
    this.choosing = next.catch(() => undefined);
    return next;
  }

  /** Forget a removed project. */
  async forget(projectId: string): Promise<void> {
    const recorded = await this.load();
    if (!recorded.delete(projectId)) return;
    await this.save(recorded);
  }

  private async choose(swarm: PlacementEngine, projectId: string): Promise<SwarmNodeInfo> {
    const recorded = await this.load();
    const existing = recorded.get(projectId);
    if (existing) return swarm.node(existing);
    const placed = new Map(recorded);
    for (const service of await swarm.engine.listServices({ [SWARM_LABELS.role]: 'app' })) {
      const project = service.spec.Labels?.[SWARM_LABELS.project];
      const node = pinnedNode(service);
      if (project && node) placed.set(project, node);
    }
    const choice = chooseProjectNode(await swarm.nodes(), countProjects(placed));
    if (!choice)
      throw new SvcError('SVC_SWARM_UNAVAILABLE', 'The swarm has no ready, active node for apps (a node labelled svc.apps=true, or a manager) with an address');
    await this.record(projectId, choice.id);
    return choice;
  }

  private async record(projectId: string, nodeId: string): Promise<void> {
    const recorded = await this.load();
    recorded.set(projectId, nodeId);
    await this.save(recorded);
  }

  private async load(): Promise<Map<string, string>> {
    if (this.recorded) return this.recorded;
    const text = await readFile(this.file, 'utf8').catch((error: NodeJS.ErrnoException) => (error.code === 'ENOENT' ? null : Promise.reject(error)));
    if (text === null) return (this.recorded = new Map());
    let parsed: z.infer<typeof placementsSchema>;
    try {
      parsed = placementsSchema.parse(JSON.parse(text));
    } catch (error) {
      throw new SvcError(
        'SVC_INTERNAL',
        `${this.file} is not a placements file (${(error as Error).message.slice(0, 200)}); it records which swarm node holds each project's volume`,
        { cause: error },
      );
    }
    return (this.recorded = new Map(Object.entries(parsed.projects)));
  }

  private async save(recorded: Map<string, string>): Promise<void> {
    await atomicWriteFile(this.file, `${JSON.stringify({ version: 1, projects: Object.fromEntries(recorded) }, null, 2)}\n`, { mode: 0o600, mkdirs: true });
  }
}
