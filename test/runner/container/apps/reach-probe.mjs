// Runs inside a container and tries TCP connections on request: GET /connect?host=…&port=… answers
// "connected" or the error code (ETIMEDOUT when packets are dropped, ECONNREFUSED when refused).
import { createServer } from 'node:http';
import { connect } from 'node:net';

function tryConnect(host, port) {
  return new Promise((resolve) => {
    // The socket's idle timeout also bounds the handshake: dropped SYNs end as ETIMEDOUT.
    const socket = connect({ host, port, timeout: 2500 });
    socket.once('timeout', () => {
      socket.destroy();
      resolve('ETIMEDOUT');
    });
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('error', (error) => resolve(error.code ?? String(error)));
  });
}

createServer(async (req, res) => {
  const url = new URL(req.url, 'http://probe');
  if (url.pathname === '/connect') return res.end(await tryConnect(url.searchParams.get('host'), Number(url.searchParams.get('port'))));
  res.end('ok');
}).listen(Number(process.env.PORT), process.env.HOST);
process.on('SIGTERM', () => process.exit(0));
