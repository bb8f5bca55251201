import { SvcError } from '../../src/core/errors.js';
import type { CommandModule } from '../command-module.js';
import type { CheckResult } from '../doctor-checks.js';
import { ReportedError, type Output } from '../output.js';
import { runBuildCommand } from '../run-build-command.js';

/** `svc doctor`: check the app's config and files (and a named server's app isolation), print what is wrong and how to fix it. */
export const doctorCommand: CommandModule = {
  register(program, ctx) {
    program
      .command('doctor')
      .description('check svc.deploy.json, build, entry, included files and migrations, and how the server isolates apps; says how to fix each problem')
      .option('--build', 'run build.command first, so entry and included files are checked too')
      .option('--server <url>', 'also show how this control plane isolates apps (default SVC_SERVER or the stored login; none: offline checks only)')
      .action(async (options: { build?: boolean; server?: string }) => {
        const { readDeployConfig } = await import('../../src/artifacts/index.js');
        const { runDoctor } = await import('../doctor-checks.js');
        const appDir = ctx.cwd;
        if (options.build) {
          // A broken config is reported by the checks below, so only build when it parses.
          const config = await readDeployConfig(appDir).catch(() => undefined);
          if (config) await runBuildCommand(config.build.command, appDir, { self: ctx.self, env: ctx.env, out: ctx.out });
        }
        const { checkServerIsolation } = await import('../server-isolation-check.js');
        const [appChecks, server] = await Promise.all([runDoctor(appDir, { env: ctx.env }), checkServerIsolation(ctx, options.server)]);
        const checks = server ? [...appChecks, server.check] : appChecks;
        const failed = checks.filter((check) => check.status === 'fail');
        const error =
          failed.length > 0
            ? new SvcError('SVC_CLI_DOCTOR_FAILED', `${failed.length} check${failed.length === 1 ? '' : 's'} failed: ${failed.map((c) => c.id).join(', ')}`)
            : undefined;
        ctx.out.result(
          {
            ok: !error,
            appDir,
            checks,
            server: server ? { url: server.server, isolation: server.isolation } : null,
            ...(error ? { error: { code: error.code, message: error.message } } : {}),
          },
          () => renderChecks(checks, ctx.out),
        );
        // The report is the output; main() only turns the failure into the exit code.
        if (error) throw new ReportedError(error);
      });
  },
};

function renderChecks(checks: readonly CheckResult[], out: Output): string[] {
  const marks = { pass: out.paint('green')('✓'), warn: out.paint('yellow')('!'), fail: out.paint('red')('✗'), skip: out.paint('dim')('-') };
  const width = Math.max(...checks.map((check) => check.title.length));
  const lines: string[] = [];
  for (const check of checks) {
    lines.push(`${marks[check.status]} ${check.title.padEnd(width)}  ${check.message}${check.code ? ` (${check.code})` : ''}`);
    if (check.hint && (check.status === 'fail' || check.status === 'warn')) lines.push(`  ${' '.repeat(width)}  → ${check.hint}`);
  }
  const count = (status: CheckResult['status']): number => checks.filter((check) => check.status === status).length;
  lines.push('', `${count('pass')} passed, ${count('warn')} warnings, ${count('fail')} failed${count('skip') ? `, ${count('skip')} skipped` : ''}`);
  return lines;
}
