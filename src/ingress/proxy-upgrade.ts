// Upgrade requests (WebSocket) to an app: the handshake goes to the release with the same header
// rewriting as a plain request (platform credentials stripped, X-Forwarded-* set), then the two
// sockets are joined byte for byte. The tunnel holds its target like a running request, so a
// cutover's drain waits for it; a drain that times out closes it (closeUpgrades).
import { request as httpRequest, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import { clientAddress, downstreamResponseHeaders, upstreamRequestHeaders } from './forward-headers.js';
import type { RequestRecord } from './request-record.js';
import type { RouteEntry, RouteTable, UpstreamTarget } from './route-table.js';

/** What an upgrade needs from the proxy that owns it. */
export interface UpgradeOwner {
  readonly routes: RouteTable;
  readonly trustProxy: boolean;
  readonly headersTimeoutMs: number;
  /** A long-lived connection begins (counted by the proxy's idle()). */
  begin(): void;
  /** …and ends. */
  end(): void;
  /** The handshake's outcome, reported like a finished request. */
  observe(record: RequestRecord): void;
}

const REASONS: Record<number, string> = { 502: 'Bad Gateway', 503: 'Service Unavailable' };

/** An ingress error as raw HTTP/1.1 bytes for a socket that is already ours; the connection closes. */
export function rawErrorAnswer(status: number, code: string, message: string, retryAfterSeconds?: number): string {
  const body = JSON.stringify({ error: { code, message } });
  let head = `HTTP/1.1 ${status} ${REASONS[status] ?? 'Error'}\r\nconnection: close\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\ncache-control: no-store\r\n`;
  if (retryAfterSeconds !== undefined) head += `retry-after: ${retryAfterSeconds}\r\n`;
  return `${head}\r\n${body}`;
}

function responseHead(status: number, message: string, headers: readonly string[]): string {
  let head = `HTTP/1.1 ${status} ${message}\r\n`;
  for (let i = 0; i < headers.length; i += 2) head += `${headers[i]}: ${headers[i + 1]}\r\n`;
  return `${head}\r\n`;
}

/** How long a side may flush what it still has once the other side closed. */
const LINGER_MS = 1_000;

/**
 * One side's end ends the other (a WebSocket is no half-open stream; both servers keep half-open
 * sockets, so nothing else would close them): its FIN is answered with ours, and once it closed the
 * other side flushes and closes, or is cut after LINGER_MS.
 */
function join(from: Duplex, to: Duplex): void {
  from.once('end', () => from.end());
  from.once('close', () => {
    if (to.destroyed) return;
    to.end();
    setTimeout(() => to.destroy(), LINGER_MS).unref();
  });
}

/**
 * Hold an upgrade while the project is held (like a request), else proxy it to the active target.
 * `tunnels` keeps every joined client socket with its target, for closeUpgrades and shutdown.
 */
export function proxyUpgrade(
  owner: UpgradeOwner,
  tunnels: Map<Duplex, UpstreamTarget>,
  req: IncomingMessage,
  client: Duplex,
  head: Buffer,
  entry: RouteEntry,
  startedAt = performance.now(),
  heldOut = false,
): void {
  client.on('error', () => client.destroy());
  let hold = entry.hold;
  if (entry.target === null && !heldOut) {
    // An asleep route holds its upgrades while it wakes, like its requests.
    if (entry.asleep) hold = owner.routes.wakeHold(entry);
    if (hold !== null && !hold.expired) {
      const held = hold;
      const wake = (): void => {
        client.off('close', gone);
        // A hold that ran out answers now (an asleep route would otherwise start a new one).
        if (!client.destroyed) proxyUpgrade(owner, tunnels, req, client, head, entry, startedAt, held.expired);
      };
      const gone = (): void => void held.waiters.delete(wake);
      held.waiters.add(wake);
      client.once('close', gone);
      return;
    }
  }
  const target = heldOut ? null : owner.routes.acquire(entry);
  owner.begin();
  let status = 0;
  let reported = false;
  const report = (aborted: boolean): void => {
    if (reported) return;
    reported = true;
    owner.observe({
      projectId: entry.projectId,
      releaseId: target?.releaseId ?? null,
      generation: entry.generation,
      method: req.method ?? 'GET',
      status,
      latencyMs: performance.now() - startedAt,
      bytes: 0,
      aborted,
      streamError: false,
      // Without a target svc answers the upgrade itself (503).
      platform: target === null,
    });
  };
  let finished = false;
  const finish = (): void => {
    if (finished) return;
    finished = true;
    tunnels.delete(client);
    report(true);
    if (target !== null) owner.routes.release(target);
    owner.end();
  };
  client.once('close', finish);
  const fail = (httpStatus: number, code: string, message: string, retryAfter?: number): void => {
    status = httpStatus;
    report(false);
    if (client.writable) client.end(rawErrorAnswer(httpStatus, code, message, retryAfter));
    else client.destroy();
  };
  if (target === null) {
    if (hold !== null || heldOut)
      fail(503, 'SVC_INGRESS_NO_ACTIVE_RELEASE', 'This project is being released or restored and did not come back in time; retry shortly.', 5);
    else fail(503, 'SVC_INGRESS_NO_ACTIVE_RELEASE', 'This project has no active release.');
    return;
  }
  tunnels.set(client, target);
  const socket = req.socket as TLSSocket;
  const { headers } = upstreamRequestHeaders(req.rawHeaders, clientAddress(socket.remoteAddress), socket.encrypted ? 'https' : 'http', owner.trustProxy);
  // The upgrade itself is what is asked for: the hop-by-hop pair goes on to the app.
  headers.push('connection', 'Upgrade', 'upgrade', String(req.headers.upgrade ?? 'websocket'));
  const upstream = httpRequest({ host: target.host, port: target.port, method: req.method, path: req.url, headers, setHost: false, agent: false });
  upstream.setTimeout(owner.headersTimeoutMs, () => upstream.destroy(new Error('no answer to the upgrade in time')));
  const cancel = (): void => void upstream.destroy();
  client.once('close', cancel);
  upstream.once('upgrade', (res: IncomingMessage, appSocket: Socket, appHead: Buffer) => {
    client.off('close', cancel);
    appSocket.setTimeout(0);
    status = res.statusCode ?? 101;
    report(false);
    if (client.destroyed) {
      appSocket.destroy();
      return;
    }
    client.write(responseHead(status, res.statusMessage ?? 'Switching Protocols', res.rawHeaders));
    if (appHead.length > 0) client.write(appHead);
    if (head.length > 0) appSocket.write(head);
    appSocket.on('error', () => client.destroy());
    join(appSocket, client);
    join(client, appSocket);
    appSocket.pipe(client);
    client.pipe(appSocket);
  });
  // The app declined the upgrade: its answer goes back as is, then the connection closes.
  upstream.once('response', (res: IncomingMessage) => {
    client.off('close', cancel);
    upstream.setTimeout(0);
    status = res.statusCode ?? 502;
    report(false);
    const out = downstreamResponseHeaders(res.headers);
    out.push('connection', 'close');
    client.write(responseHead(status, res.statusMessage ?? '', out));
    res.pipe(client);
    res.once('error', () => client.destroy());
  });
  upstream.once('error', () => {
    if (status === 0) fail(502, 'SVC_INGRESS_UPSTREAM_UNAVAILABLE', "The project's release did not answer the request.");
    else client.destroy();
  });
  upstream.end();
}
