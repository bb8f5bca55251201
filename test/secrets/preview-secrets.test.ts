// The preview scope of project secrets: independent of production under the same name, chosen with
// ?scope= on every route, never loaded for the other scope, and bound to its scope by the AAD so a
// box moved between the two rows fails authentication.
import { afterEach, describe, expect, it } from 'vitest';
import { isSvcError } from '../../src/core/errors.js';
import { MAX_SECRETS_PER_PROJECT } from '../../src/secrets/contract.js';
import { createProject, register, startHarness, type Browser, type Harness } from '../platform/harness.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

async function setup(): Promise<{ h: Harness; owner: Browser; project: { id: string; organizationId: string } }> {
  const h = await startHarness();
  cleanup.push(() => h.close());
  const owner = await register(h.app, 'owner@example.com');
  const project = await createProject(h.app, owner, { name: 'Shop', slug: 'shop' });
  return { h, owner, project };
}

function put(h: Harness, owner: Browser, projectId: string, name: string, value: string, query = '') {
  return h.app.inject({ method: 'PUT', url: `/api/projects/${projectId}/secrets/${name}${query}`, headers: owner.headers(), payload: { value } });
}

describe('preview secrets', () => {
  it('are independent of production secrets of the same name: set, list, load and delete per scope; audited with the scope', async () => {
    const { h, owner, project } = await setup();
    expect((await put(h, owner, project.id, 'API_KEY', 'live-value')).statusCode).toBe(201);
    const preview = await put(h, owner, project.id, 'API_KEY', 'test-value', '?scope=preview');
    expect(preview.statusCode).toBe(201); // a new secret, not a replacement of the production one
    expect(preview.json()).toMatchObject({ secret: { name: 'API_KEY', scope: 'preview' }, created: true });
    expect((await put(h, owner, project.id, 'ONLY_PREVIEW', 'p2', '?scope=preview')).statusCode).toBe(201);
    expect((await put(h, owner, project.id, 'ONLY_PRODUCTION', 'l2', '?scope=production')).statusCode).toBe(201);

    expect(await h.plane.secrets.loadSecrets(project.id)).toEqual({ API_KEY: 'live-value', ONLY_PRODUCTION: 'l2' });
    expect(await h.plane.secrets.loadSecrets(project.id, 'production')).toEqual({ API_KEY: 'live-value', ONLY_PRODUCTION: 'l2' });
    expect(await h.plane.secrets.loadSecrets(project.id, 'preview')).toEqual({ API_KEY: 'test-value', ONLY_PREVIEW: 'p2' });

    const names = async (query: string) =>
      (await h.app.inject({ method: 'GET', url: `/api/projects/shop/secrets${query}`, headers: owner.headers() })).json<{
        secrets: { name: string; scope: string }[];
      }>().secrets;
    expect(await names('')).toEqual([
      expect.objectContaining({ name: 'API_KEY', scope: 'production' }),
      expect.objectContaining({ name: 'ONLY_PRODUCTION', scope: 'production' }),
    ]);
    expect(await names('?scope=production')).toEqual(await names(''));
    expect(await names('?scope=preview')).toEqual([
      expect.objectContaining({ name: 'API_KEY', scope: 'preview' }),
      expect.objectContaining({ name: 'ONLY_PREVIEW', scope: 'preview' }),
    ]);

    // Deleting in one scope leaves the other; a name only in the other scope is not found.
    const del = await h.app.inject({ method: 'DELETE', url: `/api/projects/${project.id}/secrets/API_KEY?scope=preview`, headers: owner.headers() });
    expect(del.json()).toEqual({ deleted: true, name: 'API_KEY', scope: 'preview' });
    expect(await h.plane.secrets.loadSecrets(project.id, 'preview')).toEqual({ ONLY_PREVIEW: 'p2' });
    expect((await h.plane.secrets.loadSecrets(project.id)).API_KEY).toBe('live-value');
    const crossDelete = await h.app.inject({
      method: 'DELETE',
      url: `/api/projects/${project.id}/secrets/ONLY_PRODUCTION?scope=preview`,
      headers: owner.headers(),
    });
    expect(crossDelete.json().error.code).toBe('SVC_SECRET_NOT_FOUND');
    expect(await h.plane.secrets.loadSecrets(project.id)).toHaveProperty('ONLY_PRODUCTION', 'l2');

    const audit = (
      h.plane.db.prepare("SELECT kind, metadata FROM audit_events WHERE kind LIKE 'secret.%' ORDER BY seq").all() as { kind: string; metadata: string }[]
    ).map((a) => ({ kind: a.kind, ...(JSON.parse(a.metadata) as object) }));
    expect(audit).toEqual([
      { kind: 'secret.set', name: 'API_KEY', scope: 'production', created: true },
      { kind: 'secret.set', name: 'API_KEY', scope: 'preview', created: true },
      { kind: 'secret.set', name: 'ONLY_PREVIEW', scope: 'preview', created: true },
      { kind: 'secret.set', name: 'ONLY_PRODUCTION', scope: 'production', created: true },
      { kind: 'secret.delete', name: 'API_KEY', scope: 'preview' },
    ]);
  });

  it('refuses an unknown scope without writing', async () => {
    const { h, owner, project } = await setup();
    const bad = await put(h, owner, project.id, 'API_KEY', 'x', '?scope=staging');
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.code).toBe('SVC_VALIDATION');
    const list = await h.app.inject({ method: 'GET', url: `/api/projects/${project.id}/secrets?scope=PREVIEW`, headers: owner.headers() });
    expect(list.statusCode).toBe(400);
    expect((h.plane.db.prepare('SELECT COUNT(*) AS n FROM secrets').get() as { n: number }).n).toBe(0);
  });

  it('a ciphertext copied from one scope to the other fails authentication in both directions', async () => {
    const { h, owner, project } = await setup();
    await put(h, owner, project.id, 'TOKEN', 'live-token');
    await put(h, owner, project.id, 'TOKEN', 'preview-token', '?scope=preview');
    const box = (scope: string) =>
      (
        h.plane.db.prepare('SELECT ciphertext FROM secrets WHERE project_id = ? AND scope = ? AND name = ?').get(project.id, scope, 'TOKEN') as {
          ciphertext: Buffer;
        }
      ).ciphertext;
    const write = (scope: string, ciphertext: Buffer) =>
      h.plane.db.prepare('UPDATE secrets SET ciphertext = ? WHERE project_id = ? AND scope = ? AND name = ?').run(ciphertext, project.id, scope, 'TOKEN');
    const production = box('production');
    const preview = box('preview');

    // The production value pasted into the preview row never reaches a preview.
    write('preview', production);
    const intoPreview = await h.plane.secrets.loadSecrets(project.id, 'preview').catch((e: unknown) => e);
    expect(isSvcError(intoPreview, 'SVC_SECRET_DECRYPT_FAILED')).toBe(true);
    expect(String((intoPreview as Error).message)).not.toContain('live-token');
    expect(await h.plane.secrets.loadSecrets(project.id)).toEqual({ TOKEN: 'live-token' });

    write('preview', preview);
    write('production', preview);
    const intoProduction = await h.plane.secrets.loadSecrets(project.id, 'production').catch((e: unknown) => e);
    expect(isSvcError(intoProduction, 'SVC_SECRET_DECRYPT_FAILED')).toBe(true);
    expect(await h.plane.secrets.loadSecrets(project.id, 'preview')).toEqual({ TOKEN: 'preview-token' });
  });

  it('counts the per-project limit per scope', async () => {
    const { h, project } = await setup();
    const subject = { project, actor: { type: 'system' as const, id: 'test', name: null } };
    for (let i = 0; i < MAX_SECRETS_PER_PROJECT; i++) h.plane.secrets.set(subject, `S_${i}`, 'v');
    const full = (() => {
      try {
        h.plane.secrets.set(subject, 'ONE_MORE', 'v');
      } catch (error) {
        return error;
      }
      return undefined;
    })();
    expect(isSvcError(full, 'SVC_SECRET_LIMIT')).toBe(true);
    // A full production scope leaves the preview scope its own 200.
    for (let i = 0; i < MAX_SECRETS_PER_PROJECT; i++) h.plane.secrets.set(subject, `S_${i}`, 'p', 'preview');
    expect(() => h.plane.secrets.set(subject, 'ONE_MORE', 'p', 'preview')).toThrow(/at most 200 preview secrets/);
    expect(h.plane.secrets.list(project.id, 'preview')).toHaveLength(MAX_SECRETS_PER_PROJECT);
    expect(h.plane.secrets.list(project.id)).toHaveLength(MAX_SECRETS_PER_PROJECT);
    // Replacing an existing name at the limit still works.
    expect(h.plane.secrets.set(subject, 'S_0', 'p2', 'preview').created).toBe(false);
  });
});
