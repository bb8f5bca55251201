// B7's uploading client, run as its own process (like a browser, it is not part of the server under test).
// Usage: b7-upload-client.ts <raw|tus> <url> <totalBytes> <chunkBytes>; prints {"seconds": n} when done.
import { request } from 'node:http';

const [mode, url, totalArg, chunkArg] = process.argv.slice(2) as [string, string, string, string];
const total = Number(totalArg);
const chunk = Number(chunkArg);
const piece = Buffer.alloc(1024 * 1024);
for (let i = 0; i < piece.length; i += 4) piece.writeUInt32LE((i * 2654435761) >>> 0, i);

/** Send `count` copies of the 1 MiB piece as one request body; resolves with the status code. */
function send(method: string, headers: Record<string, string>, count: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers: { ...headers, 'content-length': String(piece.length * count) } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    let sent = 0;
    const pump = (): void => {
      while (sent < count) {
        sent += 1;
        if (!req.write(piece)) return void req.once('drain', pump);
      }
      req.end();
    };
    pump();
  });
}

const started = performance.now();
if (mode === 'raw') {
  const status = await send('PUT', { 'content-type': 'application/octet-stream' }, total / piece.length);
  if (status !== 201) throw new Error(`raw PUT answered ${status}`);
} else {
  for (let offset = 0; offset < total; offset += chunk) {
    const status = await send(
      'PATCH',
      { 'tus-resumable': '1.0.0', 'content-type': 'application/offset+octet-stream', 'upload-offset': String(offset) },
      chunk / piece.length,
    );
    if (status !== 204) throw new Error(`PATCH at ${offset} answered ${status}`);
  }
}
process.stdout.write(JSON.stringify({ seconds: (performance.now() - started) / 1000 }));
