// One HTTP exchange of the Action, through svc's one HTTP client (src/core/http/http-client.ts, undici
// request()) with a whole-exchange timeout: undici's own 300 s headers and body bounds are turned off,
// so a long release transaction (the upload waits for it) is not cut by them.
import { defaultHttpClient, type HttpClient } from '../../src/core/http/http-client.js';

/** A completed exchange: status, headers and the body as text. */
export interface HttpReply {
  status: number;
  /** A header's value (the first, when repeated), or null. */
  header(name: string): string | null;
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
export async function httpCall(call: HttpCall, http: HttpClient = defaultHttpClient): Promise<HttpReply> {
  const answer = await http.send({
    method: call.method,
    url: call.url,
    headers: call.headers ?? {},
    body: call.body ?? null,
    timeoutMs: call.timeoutMs,
    maxBodyBytes: call.maxResponseBytes ?? 4 * 1024 * 1024,
  });
  return { status: answer.status, header: answer.header, text: answer.text() };
}
