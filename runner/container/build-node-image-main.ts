// `npm run build:image [-- <image>]`: build the default container image from the host's Node runtime.
import { SvcError } from '../../src/core/errors.js';
import { buildNodeImage, DEFAULT_CONTAINER_IMAGE } from './build-node-image.js';

const image = process.argv[2] ?? process.env.SVC_CONTAINER_IMAGE ?? DEFAULT_CONTAINER_IMAGE;
try {
  await buildNodeImage({ image, log: (line) => console.log(line) });
  console.log(`Built ${image}. Use it with SVC_RUNNER=container SVC_CONTAINER_IMAGE=${image}`);
} catch (error) {
  console.error(error instanceof SvcError ? `${error.code}: ${error.message}` : error);
  process.exitCode = 1;
}
