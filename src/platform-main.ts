// Entry of `svc-platform` (bin/svc-platform.js): parse configuration, build, listen, shut down cleanly.
import { pathToFileURL } from 'node:url';
import { parsePlatformConfig, envNames, flagNames } from './core/config.js';
import { isSvcError } from './core/errors.js';
import { createLogger } from './core/logger.js';
import { buildControlPlane, type ControlPlane } from './platform.js';

const usage = `Usage: svc-platform [--listen host:port] [--data dir] [--registration bootstrap|public|disabled] [--public-url url] [--log-level level]

Every flag has an environment variable: ${Object.entries(flagNames)
  .map(([key, flag]) => `--${flag} = ${envNames[key as keyof typeof envNames]}`)
  .join(', ')}. See docs/operations.md.`;

/** Run the control plane until SIGINT/SIGTERM; returns the running plane (tests stop it with close()). */
export async function main(argv: string[], env: NodeJS.ProcessEnv = process.env): Promise<ControlPlane | undefined> {
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${usage}\n`);
    return undefined;
  }
  let config;
  try {
    config = parsePlatformConfig(argv, env, process.cwd());
  } catch (error) {
    process.stderr.write(`svc-platform: ${isSvcError(error) ? `${error.message} (${error.code})` : String(error)}\n${usage}\n`);
    process.exitCode = 2;
    return undefined;
  }
  const logger = createLogger({ level: config.logLevel });
  let plane: ControlPlane;
  try {
    plane = await buildControlPlane({ config, logger });
    await plane.app.listen({ host: config.listen.host, port: config.listen.port });
  } catch (error) {
    logger.fatal({ err: error }, 'svc-platform failed to start');
    process.exitCode = 1;
    return undefined;
  }
  const address = plane.app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.listen.port;
  logger.info({ url: config.publicUrl ?? `http://${config.listen.host.includes(':') ? `[${config.listen.host}]` : config.listen.host}:${port}`, dataDir: config.dataDir, registration: config.registration }, 'svc-platform listening');

  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    const force = setTimeout(() => {
      logger.error('shutdown took longer than 10 s; exiting');
      process.exit(1);
    }, 10_000);
    force.unref();
    plane.close().then(
      () => {
        logger.info('stopped');
        process.exitCode = 0;
      },
      (error: unknown) => {
        logger.error({ err: error }, 'error during shutdown');
        process.exitCode = 1;
      },
    );
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
  return plane;
}

// Run directly (`node --import tsx src/platform-main.ts …`, used by tests to run current sources).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main(process.argv.slice(2));
