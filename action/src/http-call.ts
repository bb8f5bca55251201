// One HTTP exchange over node:http(s) with a whole-exchange timeout. The Action uses this rather
// than fetch so a long release transaction (the upload waits for it) is not cut by fetch's
// default 300 s headers timeout.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest } from 'node:https';

/** A completed exchange: status, headers and the body as text. */
export interface HttpReply {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

export interface HttpCall {
  method: 'GET' | 'POST';
  url: string;
  headers?: Record<string, string>;
  body?: Uint8Array;
  timeoutMs: number;
  /** Largest accepted response body (default 4 MiB). */
  maxResponseBytes?: number;
}

/** Perform the request; rejects on network errors and timeouts (the caller treats both as ambiguous). */
export function httpCall(call: HttpCall): Promise<HttpReply> {
  const url = new URL(call.url);
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const max = call.maxResponseBytes ?? 4 * 1024 * 1024;
  return new Promise((resolve, reject) => {
    const req = send(url, { method: call.method, headers: { ...call.headers, ...(call.body ? { 'content-length': String(call.body.length) } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      let bytes = 0;
      res.on('data', (chunk: Buffer) => {
        bytes += chunk.length;
        if (bytes > max) return void req.destroy(new Error(`response larger than ${max} bytes`));
        chunks.push(chunk);
      });
      res.once('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
      });
      res.once('error', fail);
      res.once('aborted', () => fail(new Error('the response was cut off')));
    });
    const timer = setTimeout(() => req.destroy(new Error(`no complete response within ${Math.round(call.timeoutMs / 1000)} s`)), call.timeoutMs);
    function fail(error: Error): void {
      clearTimeout(timer);
      reject(error);
    }
    req.once('error', fail);
    req.end(call.body ? Buffer.from(call.body.buffer, call.body.byteOffset, call.body.byteLength) : undefined);
  });
}
