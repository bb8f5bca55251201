import { readFile } from 'node:fs/promises';
import { basename, resolve } from 'node:path';
import type { DecodedArtifact } from '../../src/artifacts/index.js';
import { SvcError } from '../../src/core/errors.js';
import { formatBytes } from '../../src/core/format-bytes.js';
import type { CommandModule } from '../command-module.js';
import { formatPairs } from '../output.js';

/** `svc inspect <artifact>`: decode and verify an artifact, print its header and sorted file list. */
export const inspectCommand: CommandModule = {
  register(program, ctx) {
    program
      .command('inspect')
      .description('verify an artifact and print its protocol, versions, config, digest, size and sorted files')
      .argument('<artifact>', 'path of a .svc.gz artifact (e.g. .svc/artifacts/<digest>.svc.gz)')
      .option('--cat <path>', 'print the content of one file from the artifact instead (raw bytes; base64 with --json)')
      .action(async (artifact: string, options: { cat?: string }) => {
        const path = resolve(ctx.cwd, artifact);
        const bytes = await readFile(path).catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'ENOENT') throw new SvcError('SVC_NOT_FOUND', `No artifact at ${artifact}`);
          throw new SvcError('SVC_IO', `Cannot read ${artifact}: ${error.message}`, { cause: error });
        });
        const { decodeArtifact } = await import('../../src/artifacts/index.js');
        const decoded = await decodeArtifact(bytes, { expectedDigest: digestFromName(path) });
        if (options.cat !== undefined) return printFile(decoded, options.cat);
        ctx.out.result(describe(decoded, artifact), () => renderHuman(decoded, artifact));
      });

    function printFile(decoded: DecodedArtifact, path: string): void {
      const file = decoded.files.find((f) => f.path === path);
      if (!file) throw new SvcError('SVC_NOT_FOUND', `${path} is not in the artifact (svc inspect lists its files)`);
      if (ctx.json) ctx.out.writeJson({ path: file.path, size: file.size, sha256: file.sha256, contentBase64: file.content.toString('base64') });
      else ctx.stdout.write(file.content.toString('utf8'));
    }
  },
};

// A file named `<digest>.svc.gz` (as dry runs write it) is also checked against its name.
function digestFromName(path: string): string | undefined {
  const name = basename(path);
  if (!name.endsWith('.svc.gz')) return undefined;
  const stem = name.slice(0, -'.svc.gz'.length);
  return /^(sha256[:-])?[0-9a-f]{64}$/.test(stem) ? stem : undefined;
}

/** The `--json` shape: everything but file contents. */
function describe(decoded: DecodedArtifact, path: string): Record<string, unknown> {
  const { document } = decoded;
  return {
    path,
    digest: decoded.digest,
    mediaType: 'application/vnd.svc.deploy+gzip',
    size: decoded.gzipBytes,
    protocol: document.protocol,
    builder: document.builder,
    service: document.service,
    runtime: document.runtime,
    config: document.config,
    fileCount: decoded.files.length,
    totalBytes: decoded.totalBytes,
    files: decoded.files.map((file) => ({ path: file.path, size: file.size, mode: file.mode, modeOctal: file.mode.toString(8), sha256: file.sha256 })),
  };
}

function renderHuman(decoded: DecodedArtifact, path: string): string[] {
  const { document } = decoded;
  const { config } = document;
  const lines = formatPairs([
    ['Artifact', path],
    ['Digest', decoded.digest],
    ['Size', `${formatBytes(decoded.gzipBytes)} gzip (${decoded.gzipBytes} bytes), ${formatBytes(decoded.totalBytes)} in ${decoded.files.length} files`],
    ['Protocol', `${document.protocol} (builder ${document.builder})`],
    ['Built by', `${document.service.name} ${document.service.version} on ${document.runtime.name} ${document.runtime.version}`],
    ['Entry', config.entry],
    ['Include', config.include.join(', ')],
    ['Build', config.build.command.join(' ')],
    [
      'Database',
      `${config.database.path} (migrations in ${config.database.migrations}${config.database.allowUnsafeMigrations ? ', unsafe migrations allowed' : ''})`,
    ],
    ['Health', `${config.health.path} within ${config.health.timeoutMs} ms`],
    ['Env', Object.keys(config.env).length ? Object.keys(config.env).sort().join(', ') : '(none)'],
  ]);
  const sizeWidth = Math.max(4, ...decoded.files.map((file) => String(file.size).length));
  lines.push('', `${'MODE'.padEnd(6)}  ${'SIZE'.padStart(sizeWidth)}  ${'SHA-256'.padEnd(64)}  PATH`);
  for (const file of decoded.files) {
    lines.push(`${file.mode.toString(8).padEnd(6)}  ${String(file.size).padStart(sizeWidth)}  ${file.sha256}  ${file.path}`);
  }
  return lines;
}
