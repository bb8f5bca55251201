import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { swarmHealthCheck } from '../../../runner/swarm/service-spec.js';
import { nanoCpus, nanoseconds, sizeBytes, ulimit } from '../../../runner/swarm/swarm-units.js';

describe('swarm units', () => {
  it('converts podman-style limits to Engine integers', () => {
    expect(sizeBytes('512m')).toBe(536_870_912);
    expect(sizeBytes('64M')).toBe(67_108_864);
    expect(sizeBytes('1g')).toBe(1_073_741_824);
    expect(sizeBytes('4096')).toBe(4096);
    expect(nanoCpus('1')).toBe(1_000_000_000);
    expect(nanoCpus('0.5')).toBe(500_000_000);
    expect(nanoseconds(1500)).toBe(1_500_000_000);
    expect(ulimit('nofile=4096:8192')).toEqual({ Name: 'nofile', Soft: 4096, Hard: 8192 });
  });

  it('refuses values it cannot convert exactly', () => {
    for (const bad of ['', '0', '-1m', '1t', '1.5g', 'm']) expect(() => sizeBytes(bad)).toThrow(/size/);
    for (const bad of ['0', '-1', 'two', '1e3']) expect(() => nanoCpus(bad)).toThrow(/CPU/);
    for (const bad of ['nofile=1', 'nofile', 'NOFILE=1:1']) expect(() => ulimit(bad)).toThrow(/ulimit/);
  });
});

// The probe in the spec runs for real here (node itself, as in the task), against HTTP on port 0.
describe('exec-form health probe', () => {
  let server: Server;
  let port = 0;
  const run = promisify(execFile);
  const probe = async (path: string, probePort: number): Promise<number> => {
    const [, ...args] = swarmHealthCheck({ path, timeoutMs: 5000 }).Test.slice(1);
    try {
      await run(process.execPath, args, { env: { PORT: String(probePort) }, timeout: 10_000 });
      return 0;
    } catch (error) {
      return (error as { code?: number }).code ?? -1;
    }
  };
  beforeAll(async () => {
    server = createServer((req, res) => {
      res.statusCode = req.url === '/healthz' ? 204 : 500;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('exits 0 on a 2xx, 1 on any other status or no listener', async () => {
    expect(swarmHealthCheck({ path: '/healthz', timeoutMs: 5000 }).Test.slice(0, 2)).toEqual(['CMD', '/usr/bin/node']);
    expect(await probe('/healthz', port)).toBe(0);
    expect(await probe('/broken', port)).toBe(1);
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    expect(await probe('/healthz', closedPort)).toBe(1);
  });
});
