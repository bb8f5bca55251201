// The text sink the CLI writes to: process.stdout/stderr in a real run, a buffer in tests.
// Its own module because both the effects (context.ts) and the renderer (output.ts) need it.

/** A text sink such as process.stdout; `isTTY` decides whether progress is drawn. */
export interface Writer {
  write(chunk: string): unknown;
  readonly isTTY?: boolean;
}
