// The local provider's durable files per project under its root: the "active" pointer, staged release
// directories (immutable once renamed in), each release's deploy configuration, and their collection.
import { existsSync, readdirSync, readFileSync, renameSync, rmSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { extractArtifact, parseDeployConfig, type DeployConfig } from '../../src/artifacts/index.js';
import { atomicWriteFileSync } from '../../src/core/atomic-write.js';
import { prepareReleaseDir, removeReleaseDir } from '../prepare-release-dir.js';
import { platformPackageDir } from '../platform-package-dir.js';
import type { MigrationTarget } from './deploy-safety.js';
import { idSchema, type ReconcileRequest } from './provider-contract.js';

/** The durable ingress pointer of one project. */
export interface ActivePointer {
  generation: number;
  releaseId: string | null;
  host: string | null;
  port: number | null;
  /** The release active before this one (kept for rollback and never garbage-collected). */
  previousReleaseId: string | null;
}

export interface ProjectFilesOptions {
  /** Root holding `<projectId>/releases/<releaseId>`, `<projectId>/data`, `<projectId>/snapshots` and `<projectId>/active.json`. */
  rootDir: string;
  /** The svc package linked into each release as `svc`; default: this installation. */
  platformPackageDir?: string;
  operatorAllowsUnsafe?: boolean;
}

/** The files of every project under `rootDir`. */
export function createProjectFiles(options: ProjectFilesOptions) {
  const projectDir = (projectId: string): string => join(options.rootDir, idSchema.parse(projectId));
  const pointerPath = (projectId: string): string => join(projectDir(projectId), 'active.json');
  // The artifact's configuration is kept beside the releases, so a restart or rollback can start a release again.
  const configPath = (projectId: string, releaseId: string): string => join(projectDir(projectId), 'release-configs', `${releaseId}.json`);

  return {
    projectDir,
    releaseDirOf: (projectId: string, releaseId: string): string => join(projectDir(projectId), 'releases', releaseId),
    dataDirOf: (projectId: string): string => join(projectDir(projectId), 'data'),

    /** The pointer, or null when the project has none (never deployed here). */
    active(projectId: string): ActivePointer | null {
      try {
        return JSON.parse(readFileSync(pointerPath(projectId), 'utf8')) as ActivePointer;
      } catch {
        return null;
      }
    },
    /** Move the pointer in one atomic write (temp + fsync + rename). */
    writePointer: (projectId: string, pointer: ActivePointer): void => atomicWriteFileSync(pointerPath(projectId), JSON.stringify(pointer)),

    readDeployConfig: async (projectId: string, releaseId: string): Promise<DeployConfig> =>
      parseDeployConfig(JSON.parse(readFileSync(configPath(projectId, releaseId), 'utf8'))),

    migrationTarget: (projectId: string, releaseDir: string, config: DeployConfig): MigrationTarget => ({
      databasePath: join(projectDir(projectId), 'data', config.database?.path ?? 'app.db'),
      migrationsDir: join(releaseDir, config.database?.migrations ?? 'migrations'),
      allowUnsafeMigrations: config.database?.allowUnsafeMigrations ?? false,
      operatorAllowsUnsafe: options.operatorAllowsUnsafe ?? false,
    }),

    /** Stage a running request's release (extract, link `svc`, read-only) and store its configuration; returns its directory. */
    async stage(request: ReconcileRequest): Promise<string> {
      const projectId = request.operation.projectId;
      const releasesDir = join(projectDir(projectId), 'releases');
      const releaseDir = join(releasesDir, request.desired.releaseId!);
      await mkdir(join(projectDir(projectId), 'release-configs'), { recursive: true });
      atomicWriteFileSync(configPath(projectId, request.desired.releaseId!), JSON.stringify(request.artifact!.decoded.config));
      // Releases are immutable: an existing directory is reused (never overwritten in place).
      if (existsSync(releaseDir)) return releaseDir;
      await mkdir(releasesDir, { recursive: true });
      const staging = join(releasesDir, `.staging-${request.desired.releaseId}-${request.operation.fence}`);
      await removeReleaseDir(staging);
      await extractArtifact(request.artifact!.decoded, staging);
      // As in the control plane's release transaction: `svc` resolves to the platform package, then read-only.
      await prepareReleaseDir({ releaseDir: staging, platformPackageDir: options.platformPackageDir ?? platformPackageDir() });
      renameSync(staging, releaseDir);
      return releaseDir;
    },

    /** Rule 9: remove releases (and their snapshots and configurations) not in `keep`. */
    async collect(projectId: string, keep: ReadonlySet<string>): Promise<void> {
      const releasesDir = join(projectDir(projectId), 'releases');
      for (const name of readdirSync(releasesDir)) if (!name.startsWith('.') && !keep.has(name)) await removeReleaseDir(join(releasesDir, name));
      for (const [sub, suffix] of [
        ['snapshots', '.db'],
        ['release-configs', '.json'],
      ] as const) {
        const subDir = join(projectDir(projectId), sub);
        if (!existsSync(subDir)) continue;
        for (const name of readdirSync(subDir))
          if (!name.startsWith('.') && !keep.has(name.slice(0, -suffix.length))) rmSync(join(subDir, name), { force: true });
      }
    },
  };
}
