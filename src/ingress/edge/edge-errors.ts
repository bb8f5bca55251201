// The answers the ingress process gives itself (it imports nothing from the error registry so it
// starts fast; test/ingress/edge checks these codes exist there). Pure.

/** Held for the whole bound and the control plane never came back. */
export const CONTROL_PLANE_UNAVAILABLE = 'SVC_CONTROL_PLANE_UNAVAILABLE';
/** The control plane went away after the request was (partly) delivered; never retried. */
export const CONTROL_PLANE_CONNECTION_LOST = 'SVC_CONTROL_PLANE_CONNECTION_LOST';

export interface EdgeAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** 503 + Retry-After after a hold that ran out, or 502 when a delivered request lost its control plane. */
export function edgeAnswer(code: typeof CONTROL_PLANE_UNAVAILABLE | typeof CONTROL_PLANE_CONNECTION_LOST, heldMs: number): EdgeAnswer {
  const unavailable = code === CONTROL_PLANE_UNAVAILABLE;
  const message = unavailable
    ? `The svc control plane did not come back within ${heldMs} ms; the request was not delivered.`
    : 'The svc control plane closed the connection before it answered; the request may have been processed and was not retried.';
  const body = JSON.stringify({ error: { code, message } });
  const headers: Record<string, string> = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    'cache-control': 'no-store',
  };
  if (unavailable) headers['retry-after'] = '5';
  return { status: unavailable ? 503 : 502, headers, body };
}

/** The same answer as raw HTTP/1.1 bytes, for an upgrade request whose socket is already ours. */
export function rawEdgeAnswer(answer: EdgeAnswer): string {
  const reason = answer.status === 503 ? 'Service Unavailable' : 'Bad Gateway';
  let head = `HTTP/1.1 ${answer.status} ${reason}\r\nconnection: close\r\n`;
  for (const [name, value] of Object.entries(answer.headers)) head += `${name}: ${value}\r\n`;
  return `${head}\r\n${answer.body}`;
}
