// One podman invocation as data: the executable and the global flags every call carries, so launches
// never depend on the host's containers.conf (on some hosts crun fails; runc is passed explicitly).
import { command, type Command } from '../../src/core/command.js';

/** Global podman flags put before every subcommand. */
export interface PodmanGlobal {
  /** podman executable (default `podman`). */
  podman: string;
  /** OCI runtime passed as `--runtime` (default `runc`). */
  runtime: string;
}

export const defaultPodmanGlobal: PodmanGlobal = { podman: 'podman', runtime: 'runc' };

/** `podman --runtime <runtime> <args>`; `env`, when given, replaces the environment podman sees. */
export function podmanCommand(global: PodmanGlobal, args: readonly string[], env?: Record<string, string>): Command {
  return command(global.podman, ['--runtime', global.runtime, ...args], env ? { env, replaceEnv: true } : {});
}
