/** An error the control plane answered with (`{ error: { code, message } }`); the code may be newer than this Action. */
export class RemoteError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'RemoteError';
  }
}
