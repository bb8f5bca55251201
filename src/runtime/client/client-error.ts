/** An error reported by the server (`{ error: { code, message } }`) or by the client itself. */
export class SvcClientError extends Error {
  readonly code: string;
  /** HTTP status, or 0 when no response was received. */
  readonly status: number;
  /** JSON data an app error carried, if any. */
  readonly data: unknown;

  constructor(code: string, message: string, status = 0, data: unknown = undefined) {
    super(message);
    this.name = 'SvcClientError';
    this.code = code;
    this.status = status;
    this.data = data;
  }
}
