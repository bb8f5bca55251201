// Entry of a runtime supervisor process (spawned detached by SupervisedRunner with an IPC channel as
// its control connection). Waits for one `start` message, then supervises that app until it ends.
import { controlMessageSchema, type ControlMessage, type SupervisorMessage } from './supervisor-protocol.js';
import { runSupervisor, type ControlChannel } from './runtime-supervisor.js';

const send = process.send?.bind(process);
if (!send) {
  process.stderr.write('svc supervisor: must be started with an IPC control connection\n');
  process.exit(2);
}

const listeners: ((message: ControlMessage) => void)[] = [];
const pending: ControlMessage[] = [];
let startResolve: (message: Extract<ControlMessage, { type: 'start' }>) => void = () => undefined;
const started = new Promise<Extract<ControlMessage, { type: 'start' }>>((resolve) => (startResolve = resolve));
let haveStart = false;

process.on('message', (raw: unknown) => {
  const parsed = controlMessageSchema.safeParse(raw);
  if (!parsed.success) return process.stderr.write(`svc supervisor: ignored an invalid control message\n`) && undefined;
  const message = parsed.data;
  if (message.type === 'start') {
    if (!haveStart) startResolve(message);
    haveStart = true;
    return;
  }
  if (listeners.length === 0) pending.push(message);
  for (const listener of listeners) listener(message);
});
const disconnects: (() => void)[] = [];
let disconnected = false;
process.on('disconnect', () => {
  disconnected = true;
  // Control lost before the app was even requested: nothing to supervise.
  if (!haveStart) process.exit(0);
  for (const listener of disconnects) listener();
});
// A plain SIGTERM (operator) stops the runtime the same way as a lost control connection.
process.on('SIGTERM', () => {
  disconnected = true;
  for (const listener of disconnects) listener();
});

const channel: ControlChannel = {
  send: (message: SupervisorMessage) =>
    new Promise((resolve, reject) => {
      if (disconnected || !process.connected) return reject(new Error('control connection lost'));
      send(message, undefined, {}, (error) => (error ? reject(error) : resolve()));
    }),
  connected: () => !disconnected && process.connected,
  onMessage: (listener) => {
    listeners.push(listener);
    for (const message of pending.splice(0)) listener(message);
  },
  onDisconnect: (listener) => {
    disconnects.push(listener);
    if (disconnected) listener();
  },
};

const code = await runSupervisor(await started, channel);
if (process.connected) process.disconnect();
process.exit(code);
