// A task the engine rejected because its node lacks the base image: the manager cannot put an image
// on another node (images are local and never pulled), so the operator loads it there.
import { SvcError } from '../../src/core/errors.js';
import type { SwarmRuntime } from './swarm-runtime.js';

export function imageMissingError(rt: Pick<SwarmRuntime, 'image'>, nodeId: string | undefined, what: string): SvcError {
  return new SvcError(
    'SVC_SWARM_IMAGE_MISSING',
    `Swarm node ${nodeId ?? '?'} does not have the base image ${rt.image}, so ${what} cannot run there. Load it on that node: docker save ${rt.image} on the manager, docker load on the node.`,
    {
      details: { nodeId: nodeId ?? null, image: rt.image },
    },
  );
}
