// Run the bundled Action exactly as the runner does: `node action/dist/index.js` with INPUT_* and
// GITHUB_* variables, GITHUB_OUTPUT / GITHUB_STEP_SUMMARY files, and (for OIDC) the
// ACTIONS_ID_TOKEN_REQUEST_* pair. Also prepares an app checkout whose `svc` is this repository's CLI.
import { spawn } from 'node:child_process';
import { chmod, cp, mkdir, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../support/repo-root.js';

export interface ActionRun {
  exitCode: number | null;
  stdout: string;
  stderr: string;
  outputs: Record<string, string>;
  summary: string;
}

/** Parse a GITHUB_OUTPUT file (`name<<DELIM` … `DELIM` entries, or `name=value` lines). */
export function parseOutputFile(text: string): Record<string, string> {
  const outputs: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const heredoc = /^([^=<]+)<<(.+)$/.exec(line);
    if (heredoc) {
      const end = lines.indexOf(heredoc[2]!, i + 1);
      if (end < 0) throw new Error(`unterminated output ${heredoc[1]}`);
      outputs[heredoc[1]!] = lines.slice(i + 1, end).join('\n');
      i = end;
    } else if (line.includes('=')) {
      outputs[line.slice(0, line.indexOf('='))] = line.slice(line.indexOf('=') + 1);
    }
  }
  return outputs;
}

/** Run the Action once in `workspace` with these inputs and extra environment; files live in a fresh dir. */
export async function runActionProcess(
  workspace: string,
  inputs: Record<string, string>,
  env: Record<string, string>,
  timeoutMs = 120_000,
): Promise<ActionRun> {
  const files = await mkdtemp(join(tmpdir(), 'svc-action-files-'));
  const outputFile = join(files, 'output');
  const summaryFile = join(files, 'summary');
  await writeFile(outputFile, '');
  await writeFile(summaryFile, '');
  const childEnv: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: files,
    GITHUB_ACTIONS: 'true',
    GITHUB_WORKSPACE: workspace,
    GITHUB_OUTPUT: outputFile,
    GITHUB_STEP_SUMMARY: summaryFile,
    ...Object.fromEntries(Object.entries(inputs).map(([name, value]) => [`INPUT_${name.replace(/ /g, '_').toUpperCase()}`, value])),
    ...env,
  };
  const child = spawn(process.execPath, [join(repoRoot, 'action', 'dist', 'index.js')], { cwd: workspace, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const exitCode = await new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  clearTimeout(timer);
  return { exitCode, stdout, stderr, outputs: parseOutputFile(await readFile(outputFile, 'utf8')), summary: await readFile(summaryFile, 'utf8') };
}

/**
 * Copy a fixture app into `<workspace>/app` with `node_modules/.bin/svc` running this repository's
 * CLI from source (what `npm ci` gives an app that depends on svc).
 */
export async function prepareApp(workspace: string, fixture: string): Promise<string> {
  const app = join(workspace, 'app');
  await cp(join(repoRoot, 'fixtures', 'apps', fixture), app, { recursive: true, filter: (src) => !/[/\\](dist|\.svc)$/.test(src) });
  const bin = join(app, 'node_modules', '.bin');
  await mkdir(bin, { recursive: true });
  const loader = join(repoRoot, 'node_modules', 'tsx', 'dist', 'loader.mjs');
  const shim = `#!/bin/sh\nexec "${process.execPath}" --import "file://${loader}" "${join(repoRoot, 'cli', 'run.ts')}" "$@"\n`;
  await writeFile(join(bin, 'svc'), shim);
  await chmod(join(bin, 'svc'), 0o755);
  return app;
}
