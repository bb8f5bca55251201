import { relative, resolve } from 'node:path';
import { formatBytes } from '../../src/core/format-bytes.js';
import type { CommandModule } from '../command-module.js';
import { buildTree, type BuildSummary } from '../build-tree.js';
import type { Output } from '../output.js';

/** The human line of a build (also printed when `svc deploy` runs `svc build` in-process). */
export function builtLine(summary: BuildSummary, cwd: string, paint: Output['paint']): string {
  const shown = (path: string): string => relative(cwd, path) || '.';
  const count = summary.files.length;
  return `${paint('green')('✓')} Built ${count} file${count === 1 ? '' : 's'} (${summary.transpiled} transpiled, ${formatBytes(summary.bytes)}) from ${shown(summary.src)} into ${shown(summary.dist)}`;
}

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
        ctx.out.result({ src: shown(summary.src), dist: shown(summary.dist), files: summary.files, transpiled: summary.transpiled, bytes: summary.bytes }, () =>
          builtLine(summary, ctx.cwd, (color) => ctx.out.paint(color)),
        );
      });
  },
};
