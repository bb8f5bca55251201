import { createServer } from 'node:net';
import { SvcError } from '../src/core/errors.js';

/**
 * Ask the kernel for a free TCP port on `host` (listen on port 0, read it, close). Another process
 * could take it before the app binds; the health check then fails and the start is retried or failed.
 */
export function allocatePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', (error) => reject(new SvcError('SVC_RUNNER_NO_FREE_PORT', `No free port on ${host}: ${error.message}`, { cause: error })));
    server.listen({ port: 0, host, exclusive: true }, () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => (port > 0 ? resolve(port) : reject(new SvcError('SVC_RUNNER_NO_FREE_PORT', `No free port on ${host}`))));
    });
  });
}
