// The per-project isolated networks on this host. A project's network exists while one of its
// containers runs here: the first start creates it, the last exit removes it (so deleting a project,
// which stops its app, also removes its network). Networks left behind by a crashed control plane are
// removed by removeStale(). Runs the argv of network-args.ts.
import type { Command } from '../../src/core/command.js';
import { SvcError } from '../../src/core/errors.js';
import { execCommand, type ExecResult, type Spawner } from '../../src/core/exec.js';
import {
  buildNetworkCreateCommand,
  buildNetworkExistsCommand,
  buildNetworkListCommand,
  buildNetworkRemoveCommand,
  projectNetworkName,
} from './network-args.js';
import type { PodmanGlobal } from './podman-command.js';

/** podman's own error line (it may be followed by usage hints), for the message. */
function podmanError(result: ExecResult): string {
  const lines = result.stderr.trim().split('\n');
  return lines.find((line) => line.startsWith('Error:')) ?? lines.pop() ?? '';
}

/** Creates, checks and removes the networks of projects. */
export class ProjectNetworks {
  /**
   * Containers of this runner using each network (started or re-adopted, not yet exited), by name:
   * a container detached and re-adopted by the same runner is still one user.
   */
  private readonly users = new Map<string, Set<string>>();
  /** One operation per network at a time: a start never races the removal after the last exit. */
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly global: PodmanGlobal,
    private readonly spawner?: Spawner,
  ) {}

  private run(cmd: Command): Promise<ExecResult> {
    return execCommand(cmd, {}, this.spawner);
  }

  private async exists(name: string): Promise<boolean> {
    const result = await this.run(buildNetworkExistsCommand(this.global, name));
    if (result.exitCode === 0) return true;
    if (result.exitCode === 1) return false;
    throw new SvcError('SVC_CONTAINER_UNAVAILABLE', `podman network exists ${name} failed: ${podmanError(result)}`);
  }

  private serial<T>(name: string, work: () => Promise<T>): Promise<T> {
    const next = (this.queues.get(name) ?? Promise.resolve()).then(work);
    const settled = next.catch(() => undefined);
    this.queues.set(name, settled);
    void settled.then(() => {
      if (this.queues.get(name) === settled) this.queues.delete(name);
    });
    return next;
  }

  /** The project's network, created if missing (idempotent; safe against a concurrent creator). */
  ensure(projectId: string): Promise<string> {
    const name = projectNetworkName(projectId);
    return this.serial(name, () => this.create(name));
  }

  private addUser(name: string, container: string): void {
    const users = this.users.get(name) ?? new Set<string>();
    users.add(container);
    this.users.set(name, users);
  }

  /** Ensure the network for a container about to start, and count it as a user. */
  acquire(projectId: string, container: string): Promise<string> {
    const name = projectNetworkName(projectId);
    return this.serial(name, async () => {
      await this.create(name);
      this.addUser(name, container);
      return name;
    });
  }

  /** Count a re-adopted container as a user: it runs, so its network exists. */
  retain(projectId: string, container: string): void {
    this.addUser(projectNetworkName(projectId), container);
  }

  /**
   * A container exited (or failed to start): the last one removes the network. Without --force, so
   * a container of another control plane on this host still using it keeps it.
   */
  release(projectId: string, container: string): Promise<void> {
    const name = projectNetworkName(projectId);
    return this.serial(name, async () => {
      const users = this.users.get(name);
      users?.delete(container);
      if (users && users.size > 0) return;
      this.users.delete(name);
      await this.run(buildNetworkRemoveCommand(this.global, name));
    });
  }

  private async create(name: string): Promise<string> {
    if (await this.exists(name)) return name;
    const result = await this.run(buildNetworkCreateCommand(this.global, name));
    // Another control plane on the same host may have created it in between: that is success too.
    if (result.exitCode !== 0 && !(await this.exists(name))) {
      throw new SvcError('SVC_CONTAINER_UNAVAILABLE', `Creating the isolated network ${name} failed: ${podmanError(result)}`);
    }
    return name;
  }

  /** Remove the project's network now (its containers must have stopped). Missing is success. */
  remove(projectId: string): Promise<void> {
    const name = projectNetworkName(projectId);
    return this.serial(name, async () => {
      const result = await this.run(buildNetworkRemoveCommand(this.global, name));
      if (result.exitCode !== 0 && (await this.exists(name))) {
        throw new SvcError('SVC_CONTAINER_UNAVAILABLE', `Removing the network ${name} failed: ${podmanError(result)}`);
      }
    });
  }

  /**
   * Remove every network carrying this runner's label whose project is not in `liveProjectIds`
   * (leftovers of deleted projects, or of a control plane that died with its containers). Pass every
   * existing project, not only running ones, so a start in progress never loses its network. A network
   * still used by a container is kept. Returns the removed names.
   */
  async removeStale(liveProjectIds: Iterable<string>): Promise<string[]> {
    const keep = new Set([...liveProjectIds].map(projectNetworkName));
    const listed = await this.run(buildNetworkListCommand(this.global));
    if (listed.exitCode !== 0) throw new SvcError('SVC_CONTAINER_UNAVAILABLE', `podman network ls failed: ${podmanError(listed)}`);
    const removed: string[] = [];
    for (const name of listed.stdout.split('\n').map((line) => line.trim())) {
      if (!name || keep.has(name) || this.users.has(name)) continue;
      const result = await this.serial(name, () => this.run(buildNetworkRemoveCommand(this.global, name)));
      if (result.exitCode === 0) removed.push(name);
    }
    return removed;
  }
}
