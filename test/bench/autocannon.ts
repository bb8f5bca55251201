// Load from autocannon in its own process (so the load generator does not share the event loop of
// what it measures), read back as its JSON summary.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot } from '../support/repo-root.js';

export interface CannonSummary {
  requests: { average: number; total: number };
  latency: { p99: number; average: number };
  non2xx: number;
  errors: number;
}

/**
 * Run `connections` clients against `url` for `seconds`; rejects when autocannon fails or overruns by 30 s.
 * With `socketPath`, connects to that unix socket (the URL still gives the path and Host).
 */
export function autocannon(url: string, headers: Record<string, string>, seconds: number, connections: number, socketPath?: string): Promise<CannonSummary> {
  const args = ['-j', '-n', '-c', String(connections), '-d', String(seconds)];
  for (const [key, value] of Object.entries(headers)) args.push('-H', `${key}=${value}`);
  if (socketPath !== undefined) args.push('-S', socketPath);
  args.push(url);
  return new Promise((resolve, reject) => {
    const child = spawn(join(repoRoot, 'node_modules', '.bin', 'autocannon'), args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    const timer = setTimeout(() => child.kill('SIGKILL'), (seconds + 30) * 1000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      try {
        if (code !== 0) throw new Error(`autocannon exited ${code}: ${err}`);
        resolve(JSON.parse(out) as CannonSummary);
      } catch (error) {
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  });
}
