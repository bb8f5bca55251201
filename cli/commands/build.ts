import { relative, resolve } from 'node:path';
import { formatBytes } from '../../src/core/format-bytes.js';
import type { CommandModule } from '../command-module.js';
import { buildTree } from '../build-tree.js';

/** `svc build <src> <dist>`: the default build.command (copy, transpiling .ts/.mts/.cts). */
export const buildCommand: CommandModule = {
  register(program, ctx) {
    program
      .command('build')
      .description('copy <src> into <dist> deterministically, transpiling .ts/.mts/.cts with esbuild (the default build.command)')
      .argument('<src>', 'source directory')
      .argument('<dist>', 'output directory (replaced as a whole)')
      .action(async (src: string, dist: string) => {
        const progress = ctx.out.progress('Building');
        const summary = await buildTree(resolve(ctx.cwd, src), resolve(ctx.cwd, dist), {
          onProgress: (done, total) => progress.update(`${done}/${total} files`),
        });
        progress.done();
        const shown = (path: string): string => relative(ctx.cwd, path) || '.';
        ctx.out.result(
          { src: shown(summary.src), dist: shown(summary.dist), files: summary.files, transpiled: summary.transpiled, bytes: summary.bytes },
          () =>
            `${ctx.out.paint('green')('✓')} Built ${summary.files.length} file${summary.files.length === 1 ? '' : 's'} (${summary.transpiled} transpiled, ${formatBytes(summary.bytes)}) from ${shown(summary.src)} into ${shown(summary.dist)}`,
        );
      });
  },
};
