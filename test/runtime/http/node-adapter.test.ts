import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createFetchHandler, openDatabase, sendFetchResponse, toFetchRequest, type AppDatabase } from '../../../src/runtime/index.js';
import { backend } from '../support/tasks-backend.js';

let db: AppDatabase | undefined;
let server: Server | undefined;
afterEach(async () => {
  if (server) await new Promise((resolve) => server!.close(resolve));
  server = undefined;
  db?.close();
});

/** A node:http server around a Fetch handler, the way apps wire the runtime without the live fast path. */
async function serve(respond: (request: Request) => Response | Promise<Response>): Promise<number> {
  server = createServer((req, res) => {
    void Promise.resolve(respond(toFetchRequest(req, {}, res))).then((response) => sendFetchResponse(res, response));
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

function call(port: number, method: string, path: string, body?: string): Promise<{ status: number; headers: Record<string, unknown>; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers: { 'content-type': 'application/json' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('node adapter', () => {
  it('sends the runtime’s JSON responses whole, with Content-Length, errors included', async () => {
    db = openDatabase(backend.schema);
    const port = await serve(createFetchHandler(backend, db));
    const added = await call(port, 'POST', '/__svc/mutation/notes/add', JSON.stringify({ title: 'über', priority: 1 }));
    expect(added.status).toBe(200);
    expect(added.headers['transfer-encoding']).toBeUndefined();
    expect(Number(added.headers['content-length'])).toBe(Buffer.byteLength(added.text));
    expect(JSON.parse(added.text)).toMatchObject({ revision: 1 });
    expect(added.headers['content-type']).toBe('application/json; charset=utf-8');

    const invalid = await call(port, 'POST', '/__svc/mutation/notes/add', JSON.stringify({ title: 'x', priority: -1 }));
    expect(invalid.status).toBe(400);
    expect(Number(invalid.headers['content-length'])).toBe(Buffer.byteLength(invalid.text));
    expect(JSON.parse(invalid.text).error.code).toBe('SVC_RUNTIME_INVALID_ARGUMENTS');

    const listed = await call(port, 'POST', '/__svc/query/notes/list', '{}');
    expect(JSON.parse(listed.text).value).toEqual([expect.objectContaining({ title: 'über' })]);
  });

  it('still streams any other Response chunk by chunk', async () => {
    const port = await serve(
      () =>
        new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode('one,'));
              controller.enqueue(new TextEncoder().encode('two'));
              controller.close();
            },
          }),
          { headers: { 'content-type': 'text/plain' } },
        ),
    );
    const streamed = await call(port, 'GET', '/anything');
    expect(streamed.text).toBe('one,two');
    expect(streamed.headers['transfer-encoding']).toBe('chunked');
  });
});
