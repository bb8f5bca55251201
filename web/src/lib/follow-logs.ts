// Live log tail: GET …/logs?follow=true streams NDJSON lines (backlog first, then new entries).
// fetch + a stream reader (not EventSource) so a 401 is seen as such and the session can end cleanly.
import { logEntryWireSchema, type LogEntryWire } from '../../../src/releases/contract.js';
import { ApiError, expireSession, withQuery } from '../api/client.js';
import { friendlyMessage } from '../api/error-messages.js';

/** Split a text buffer into complete lines and the unfinished rest. Pure. */
export function splitLines(buffer: string): { lines: string[]; rest: string } {
  const parts = buffer.split('\n');
  const rest = parts.pop() ?? '';
  return { lines: parts.filter((l) => l.trim() !== ''), rest };
}

/** Stream entries of `path` until `signal` aborts or the server ends the stream. */
export async function followLogs(
  path: string,
  query: Record<string, string | number | undefined>,
  onEntry: (entry: LogEntryWire) => void,
  signal: AbortSignal,
): Promise<void> {
  let response: Response;
  try {
    response = await fetch(withQuery(path, { ...query, follow: 'true' }), { headers: { accept: 'application/x-ndjson' }, credentials: 'same-origin', signal });
  } catch (error) {
    if (signal.aborted) return;
    throw new ApiError(0, 'SVC_NETWORK', friendlyMessage('SVC_NETWORK', String(error)));
  }
  if (!response.ok || !response.body) {
    let body: { error?: { code?: string; message?: string } } = {};
    try {
      body = (await response.json()) as typeof body;
    } catch {
      // not JSON
    }
    const code = body.error?.code ?? `HTTP_${response.status}`;
    if (response.status === 401) expireSession();
    throw new ApiError(response.status, code, friendlyMessage(code, body.error?.message ?? 'Could not open the log stream'));
  }
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const split = splitLines(buffer + value);
      buffer = split.rest;
      for (const line of split.lines) {
        const parsed = logEntryWireSchema.safeParse(JSON.parse(line));
        if (parsed.success) onEntry(parsed.data);
      }
    }
  } catch (error) {
    if (!signal.aborted) throw error;
  } finally {
    reader.releaseLock();
  }
}
