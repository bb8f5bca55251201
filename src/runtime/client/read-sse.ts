// Reads a fetch response body as server-sent events (works the same in browsers and Node 20).
import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** Feed every event of `body` to `onEvent`; `onActivity` fires on any bytes (heartbeats included). */
export async function readSse(body: ReadableStream<Uint8Array>, onEvent: (message: EventSourceMessage) => void, onActivity: () => void): Promise<void> {
  const parser = createParser({ onEvent });
  const decoder = new TextDecoder();
  const reader = body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      onActivity();
      parser.feed(decoder.decode(value, { stream: true }));
    }
  } finally {
    reader.releaseLock();
  }
}
