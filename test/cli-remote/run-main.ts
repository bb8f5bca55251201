// Run the CLI's main() in-process with captured output and an explicit HOME/env (no process.env leak).
import type { HttpClient } from '../../src/core/http/http-client.js';
import { main } from '../../cli/main.js';
import type { Writer } from '../../cli/writer.js';
import { finalJson } from '../support/run-cli.js';

/** Result of one in-process CLI run; `json()` is the document of a `--json` run (the result line after streamed JSON lines). */
export interface MainRun {
  code: number;
  stdout: string;
  stderr: string;
  json<T = Record<string, unknown>>(): T;
}

class Capture implements Writer {
  text = '';
  write(chunk: string): boolean {
    this.text += chunk;
    return true;
  }
}

/** `svc <argv>` with HOME=`home` and exactly `env` (plus NO_COLOR). */
export async function runMain(argv: string[], options: { home: string; env?: Record<string, string | undefined>; http?: HttpClient }): Promise<MainRun> {
  const stdout = new Capture();
  const stderr = new Capture();
  const code = await main(argv, {
    home: options.home,
    env: { NO_COLOR: '1', ...options.env },
    stdout,
    stderr,
    ...(options.http ? { http: options.http } : {}),
  });
  return { code, stdout: stdout.text, stderr: stderr.text, json: <T>() => finalJson(stdout.text) as T };
}
