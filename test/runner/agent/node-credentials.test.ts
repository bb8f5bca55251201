// Enrollment and the node credentials file: enroll once (file written atomically, mode 0600), then
// start from the file without the token; refuse open permissions, a wrong shape, node or control plane.
import { chmod, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureNodeCredentials, readNodeCredentials } from '../../../runner/agent/node-credentials.js';
import { nodeCredentialsFileSchema } from '../../../src/nodes/contract.js';
import { listen } from '../provider/provider-helpers.js';

const TOKEN = 'registration-token-'.padEnd(48, 'r');
const CREDENTIAL = 'node-credential-'.padEnd(48, 'c');
const dir = await mkdtemp(join(tmpdir(), 'svc-node-credentials-'));
const enrolls: { auth: string | undefined; body: unknown }[] = [];
const server = await listen((req, res) => {
  let body = '';
  req.setEncoding('utf8').on('data', (c: string) => (body += c));
  req.on('end', () => {
    if (req.url !== '/api/nodes/enroll' || req.method !== 'POST') return void res.writeHead(404).end();
    enrolls.push({ auth: req.headers.authorization, body: JSON.parse(body) });
    const ok = req.headers.authorization === `Bearer ${TOKEN}` && enrolls.length === 1;
    res.writeHead(ok ? 201 : 401, { 'content-type': 'application/json' });
    res.end(JSON.stringify(ok ? { nodeId: 'node-a', credential: CREDENTIAL } : { error: { code: 'SVC_NODE_REGISTRATION_INVALID', message: 'used' } }));
  });
});
afterAll(async () => {
  await server.close();
  await rm(dir, { recursive: true, force: true });
});
const enrollment = { nodeId: 'node-a', region: 'eu-1', capacity: 3, concurrency: 2, labels: { zone: 'a' } };
const options = (path: string, registrationToken?: string) => ({
  http: { controlUrl: server.url, retryDelayMs: 1 },
  credentialsPath: path,
  registrationToken,
  enrollment,
});

describe('node credentials', () => {
  it('enrolls once, persists the credential with mode 0600, and afterwards needs only the file', async () => {
    const path = join(dir, 'nested', 'credentials.json');
    const logs: string[] = [];
    const file = await ensureNodeCredentials({ ...options(path, TOKEN), log: (l) => logs.push(l) });
    expect(file).toMatchObject({ version: 1, nodeId: 'node-a', credential: CREDENTIAL });
    expect(enrolls).toEqual([{ auth: `Bearer ${TOKEN}`, body: enrollment }]);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    expect(nodeCredentialsFileSchema.parse(JSON.parse(await readFile(path, 'utf8')))).toEqual(file);
    expect(logs.join('\n')).toContain('Remove SVC_RUNNER_REGISTRATION_TOKEN');
    expect(logs.join('\n')).not.toContain(CREDENTIAL);
    // Restart without the token: the file suffices and the control plane is not asked again.
    expect(await ensureNodeCredentials(options(path))).toEqual(file);
    expect(enrolls).toHaveLength(1);
  });

  it('without a file or a token it says what to do; a refused token is SVC_RUNNER_ENROLL_FAILED and writes nothing', async () => {
    await expect(ensureNodeCredentials(options(join(dir, 'none.json')))).rejects.toMatchObject({ code: 'SVC_RUNNER_CONFIG' });
    await expect(ensureNodeCredentials(options(join(dir, 'refused.json'), TOKEN))).rejects.toMatchObject({ code: 'SVC_RUNNER_ENROLL_FAILED' });
    await expect(stat(join(dir, 'refused.json'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(ensureNodeCredentials(options(join(dir, 'short.json'), 'short-token-1234'))).rejects.toMatchObject({ code: 'SVC_RUNNER_CONFIG' });
  });

  it('refuses a group/other-readable file, a wrong shape, another node id or another control plane', async () => {
    const good = { version: 1, controlUrl: `${server.url}/`, nodeId: 'node-a', credential: CREDENTIAL, enrolledAt: new Date().toISOString() };
    const write = async (name: string, content: string, mode = 0o600) => {
      const path = join(dir, name);
      await writeFile(path, content, { mode });
      await chmod(path, mode);
      return path;
    };
    const expected = { controlUrl: server.url, nodeId: 'node-a' };
    expect(await readNodeCredentials(await write('ok.json', JSON.stringify(good)), expected)).toEqual(good);
    for (const [name, content, mode] of [
      ['open.json', JSON.stringify(good), 0o644],
      ['garbage.json', '{not json', 0o600],
      ['extra.json', JSON.stringify({ ...good, admin: true }), 0o600],
      ['short.json', JSON.stringify({ ...good, credential: 'x' }), 0o600],
      ['other-node.json', JSON.stringify({ ...good, nodeId: 'node-b' }), 0o600],
      ['other-plane.json', JSON.stringify({ ...good, controlUrl: 'https://elsewhere.example/' }), 0o600],
    ] as const) {
      await expect(readNodeCredentials(await write(name, content, mode), expected), name).rejects.toMatchObject({ code: 'SVC_RUNNER_CONFIG' });
    }
  });
});
