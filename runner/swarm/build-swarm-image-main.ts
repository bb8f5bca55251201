// `npm run build:swarm-image`: build the swarm base image into the engine DOCKER_HOST names (svc's
// own dist/ must be built), or find the one built from the same inputs, and print the id to pin
// with SVC_SWARM_IMAGE.
import { SvcError } from '../../src/core/errors.js';
import { buildSwarmImage } from './build-swarm-image.js';
import { createEngineClient } from './engine-client.js';
import { readSwarmSettings } from './swarm-settings.js';

try {
  // Only DOCKER_HOST matters here; the endpoint is not used to build.
  const { dockerHost } = readSwarmSettings({ SVC_SWARM_ENDPOINT: 'http://127.0.0.1:0', ...process.env });
  const { imageId, reused } = await buildSwarmImage(createEngineClient({ dockerHost }), { log: (line) => console.log(line) });
  console.log(`${reused ? 'Reused' : 'Built'} ${imageId}. Pin it with SVC_SWARM_IMAGE=${imageId}`);
} catch (error) {
  console.error(error instanceof SvcError ? `${error.code}: ${error.message}` : error);
  process.exitCode = 1;
}
