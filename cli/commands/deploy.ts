import { relative } from 'node:path';
import { formatBytes } from '../../src/core/format-bytes.js';
import type { CommandModule } from '../command-module.js';
import { formatPairs } from '../output.js';

interface DeployOptions {
  dryRun?: boolean;
  build: boolean;
  name?: string;
  slug?: string;
  org?: string;
  server?: string;
  canary?: boolean;
}

/** `svc deploy [--dry-run]`: build and pack `.svc/artifacts/<digest>.svc.gz`, then (without --dry-run) upload it as a release. */
export const deployCommand: CommandModule = {
  register(program, ctx) {
    program
      .command('deploy')
      .description('build, pack and upload the app as a new release (first deploy creates and links a project); --dry-run packs offline')
      .option('--dry-run', 'build and pack only; no upload, no credentials needed')
      .option('--no-build', 'skip build.command and pack the included files as they are')
      .option('--name <name>', 'project name for the first deploy')
      .option('--slug <slug>', 'project slug for the first deploy (its domain is <slug>.<platform domain>)')
      .option('--org <org>', 'organization that owns a newly created project')
      .option('--server <url>', 'control plane URL (default SVC_SERVER or the stored login)')
      .option(
        '--canary',
        'with a running release: route measured traffic to the new release before promotion (svc.deploy.json `canary`, or the default policy)',
      )
      .action(async (options: DeployOptions) => {
        if (!options.dryRun) {
          const { deployRelease } = await import('../deploy-release.js');
          // --canary: the upload carries the canary header and waits for the stages as well.
          const { canaryHttp } = await import('./canary.js');
          await deployRelease(options.canary ? { ...ctx, http: canaryHttp(ctx.http, ctx.cwd) } : ctx, options);
          return;
        }
        // Loaded on use: the artifact code is only needed by commands that pack.
        const { packApp } = await import('../pack-app.js');
        const { ARTIFACT_MEDIA_TYPE, ARTIFACT_PROTOCOL } = await import('../../src/artifacts/index.js');
        const appDir = ctx.cwd;
        const { packed, path, built } = await packApp(appDir, ctx, { build: options.build });
        const rel = relative(appDir, path);
        ctx.out.result(
          {
            dryRun: true,
            built,
            path: rel,
            digest: packed.digest,
            mediaType: ARTIFACT_MEDIA_TYPE,
            protocol: ARTIFACT_PROTOCOL,
            size: packed.bytes.length,
            fileCount: packed.fileCount,
            totalBytes: packed.totalBytes,
          },
          () => [
            ...formatPairs([
              ['Artifact', rel],
              ['Digest', packed.digest],
              ['Size', `${formatBytes(packed.bytes.length)} gzip (${packed.bytes.length} bytes)`],
              ['Files', `${packed.fileCount} (${formatBytes(packed.totalBytes)} uncompressed)`],
            ]),
            '',
            `Dry run: nothing was uploaded. Inspect it with \`svc inspect ${rel}\`.`,
          ],
        );
      });
  },
};
