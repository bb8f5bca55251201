// Build and pack an app directory into its deterministic artifact, as `svc deploy` does
// before uploading (and as `--dry-run` does instead of uploading).
import { relative } from 'node:path';
import { packArtifact, readDeployConfig, writeArtifactFile, type DeployConfig, type PackedArtifact } from '../src/artifacts/index.js';
import type { CliContext } from './context.js';
import { runBuildCommand } from './run-build-command.js';

/** The packed artifact, where it was written and the configuration it was built from. */
export interface PackedApp {
  config: DeployConfig;
  packed: PackedArtifact;
  /** Absolute path of `.svc/artifacts/<digest>.svc.gz`. */
  path: string;
  built: boolean;
}

/** Read svc.deploy.json, run build.command (unless `build` is false), pack and write the artifact. */
export async function packApp(appDir: string, ctx: CliContext, options: { build?: boolean } = {}): Promise<PackedApp> {
  const config = await readDeployConfig(appDir);
  const build = options.build !== false;
  if (build) {
    ctx.out.note(`${ctx.out.paint('dim')('›')} Building: ${config.build.command.join(' ')}`);
    await runBuildCommand(config.build.command, appDir, { self: ctx.self, env: ctx.env, out: ctx.out });
  }
  const progress = ctx.out.progress('Packing');
  const packed = await packArtifact(appDir, { config, onProgress: (p) => progress.update(`${p.phase} ${p.done}/${p.total}`) });
  progress.done();
  const path = await writeArtifactFile(appDir, packed);
  ctx.out.note(`${ctx.out.paint('green')('✓')} Packed ${packed.fileCount} files into ${relative(appDir, path)}`);
  return { config, packed, path, built: build };
}
