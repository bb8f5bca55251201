import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registeredRoutes } from '../../src/core/http/create-http-app.js';
import { startHarness, type Harness } from './harness.js';

type Operation = {
  requestBody?: { content?: Record<string, { schema?: unknown }> };
  parameters?: { in: string; name: string }[];
  responses?: Record<string, { content?: Record<string, { schema?: unknown }> }>;
};

describe('GET /api/openapi.json', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => h.close());

  it('describes every registered route with its request and response schemas', async () => {
    const res = await h.app.inject({ method: 'GET', url: '/api/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json() as { openapi: string; paths: Record<string, Record<string, Operation>> };
    expect(doc.openapi).toMatch(/^3\./);
    const routes = registeredRoutes(h.app).filter((r) => r.method !== 'HEAD');
    expect(routes.length).toBeGreaterThan(25);
    for (const route of routes) {
      expect(route.hasSchema, `${route.method} ${route.url} has a schema`).toBe(true);
      const path = route.url.replace(/:([A-Za-z]+)/g, '{$1}');
      const op = doc.paths[path]?.[route.method.toLowerCase()];
      expect(op, `${route.method} ${route.url} is in the OpenAPI document`).toBeDefined();
      const responses = Object.entries(op!.responses ?? {});
      expect(responses.length, `${route.method} ${route.url} has responses`).toBeGreaterThan(0);
      const success = responses.find(([status]) => status.startsWith('2'));
      expect(success?.[1].content, `${route.method} ${route.url} has a success schema`).toBeDefined();
      if (['POST', 'PATCH', 'PUT'].includes(route.method) && op!.requestBody) {
        expect(op!.requestBody.content?.['application/json']?.schema).toBeDefined();
      }
      for (const name of route.url.match(/:([A-Za-z]+)/g) ?? []) {
        expect(
          op!.parameters?.some((p) => p.in === 'path' && p.name === name.slice(1)),
          `${route.url} documents ${name}`,
        ).toBe(true);
      }
    }
  });

  it('carries request body schemas generated from the zod contracts', async () => {
    const doc = (await h.app.inject({ method: 'GET', url: '/api/openapi.json' })).json() as { paths: Record<string, Record<string, Operation>> };
    const tokenBody = doc.paths['/api/tokens']!.post!.requestBody!.content!['application/json']!.schema as {
      properties: Record<string, unknown>;
      required: string[];
    };
    expect(Object.keys(tokenBody.properties)).toEqual(expect.arrayContaining(['name', 'projectId', 'permissions', 'expiresInDays']));
    expect(tokenBody.required).toEqual(expect.arrayContaining(['name', 'permissions']));
    const start = doc.paths['/api/device/start']!.post!.responses!['200']!.content!['application/json']!.schema as { properties: Record<string, unknown> };
    expect(Object.keys(start.properties)).toEqual(expect.arrayContaining(['deviceCode', 'userCode', 'verificationUri', 'interval', 'expiresIn']));
  });
});
