// Test helper: reads an SSE body with eventsource-parser and lets tests await events.
import { createParser } from 'eventsource-parser';

export interface SseEvent {
  kind: 'event' | 'comment' | 'end' | 'error';
  event?: string;
  id?: string;
  data?: string;
}

/** Read a stream of SSE bytes in the background; `next` waits for a matching event. */
export function readSse(body: ReadableStream<Uint8Array>): {
  events: SseEvent[];
  next(match: (e: SseEvent) => boolean, timeoutMs?: number): Promise<SseEvent>;
  cancel(): Promise<void>;
} {
  const events: SseEvent[] = [];
  const waiters = new Set<() => void>();
  const push = (e: SseEvent): void => {
    events.push(e);
    for (const w of [...waiters]) w();
  };
  const parser = createParser({
    onEvent: (m) => push({ kind: 'event', event: m.event, id: m.id, data: m.data }),
    onComment: (c) => push({ kind: 'comment', data: c }),
  });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(decoder.decode(value, { stream: true }));
      }
      push({ kind: 'end' });
    } catch (error) {
      push({ kind: 'error', data: String(error) });
    }
  })();
  let cursor = 0;
  return {
    events,
    next(match, timeoutMs = 5_000) {
      return new Promise((resolve, reject) => {
        const check = (): void => {
          while (cursor < events.length) {
            const e = events[cursor++]!;
            if (match(e)) {
              waiters.delete(check);
              clearTimeout(timer);
              resolve(e);
              return;
            }
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for SSE event; got ${JSON.stringify(events.slice(-5))}`));
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    cancel: () => reader.cancel().catch(() => undefined),
  };
}

/** Matchers. */
export const isSnapshot = (e: SseEvent): boolean => e.kind === 'event' && e.event === 'snapshot';
export const isError = (e: SseEvent): boolean => e.kind === 'event' && e.event === 'error';
export const isEnd = (e: SseEvent): boolean => e.kind === 'end' || e.kind === 'error';
