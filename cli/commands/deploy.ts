import { relative } from 'node:path';
import { SvcError } from '../../src/core/errors.js';
import type { CommandModule } from '../command-module.js';
import { formatBytes, formatPairs } from '../output.js';

interface DeployOptions {
  dryRun?: boolean;
  build: boolean;
  name?: string;
  slug?: string;
  org?: string;
}

/** `svc deploy [--dry-run]`: build, pack `.svc/artifacts/<digest>.svc.gz`; uploading lands with the release pipeline. */
export const deployCommand: CommandModule = {
  register(program, ctx) {
    program
      .command('deploy')
      .description('build and pack the app; --dry-run writes .svc/artifacts/<digest>.svc.gz offline, without credentials')
      .option('--dry-run', 'build and pack only; no upload, no credentials needed')
      .option('--no-build', 'skip build.command and pack the included files as they are')
      .option('--name <name>', 'project name for the first deploy')
      .option('--slug <slug>', 'project slug for the first deploy (its domain is <slug>.<platform domain>)')
      .option('--org <org>', 'organization that owns a newly created project')
      .action(async (options: DeployOptions) => {
        if (!options.dryRun) {
          throw new SvcError('SVC_NOT_AVAILABLE', 'Uploading a release is not available in this version yet (it lands with the release pipeline); run `svc deploy --dry-run` to build and pack the artifact offline');
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
