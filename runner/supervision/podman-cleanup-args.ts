// Pure podman argv for verifying a container is gone, in the shape of ../container/podman-args.ts
// (explicit `--runtime`, no shell). Removal itself reuses buildRemoveCommand from there.
import { command, type Command } from '../../src/core/command.js';
import type { PodmanGlobal } from '../container/podman-args.js';

/** `podman container exists <name>`: exit 0 present, 1 absent, anything else unknown. */
export function buildContainerExistsCommand(global: PodmanGlobal, name: string): Command {
  return command(global.podman, ['--runtime', global.runtime, 'container', 'exists', name]);
}
