// The pure halves of the engine client: log frame demultiplexing and the error mapping.
import { describe, expect, it } from 'vitest';
import { SvcError } from '../../../src/core/errors.js';
import { engineError } from '../../../runner/swarm/engine-errors.js';
import { demultiplexLogs } from '../../../runner/swarm/engine-log-frames.js';

const frame = (stream: number, text: string): Buffer => {
  const payload = Buffer.from(text);
  const header = Buffer.alloc(8);
  header[0] = stream;
  header.writeUInt32BE(payload.length, 4);
  return Buffer.concat([header, payload]);
};

describe('demultiplexLogs', () => {
  it('joins stdout and stderr frames in order', () => {
    expect(demultiplexLogs(Buffer.concat([frame(1, 'a\n'), frame(2, 'b\n'), frame(1, 'ü\n')]))).toBe('a\nb\nü\n');
  });
  it('an empty answer is empty, an unframed one (a TTY) passes as text', () => {
    expect(demultiplexLogs(Buffer.alloc(0))).toBe('');
    expect(demultiplexLogs(Buffer.from('plain text\n'))).toBe('plain text\n');
  });
  it('a truncated frame falls back to the raw text rather than dropping output', () => {
    const cut = frame(1, 'hello').subarray(0, 10);
    expect(demultiplexLogs(cut)).toBe(cut.toString('utf8'));
  });
});

describe('engineError', () => {
  const answered = (statusCode: number, message: string) => Object.assign(new Error(`(HTTP code ${statusCode})`), { statusCode, json: { message } });

  it('no answer at all is SVC_SWARM_UNAVAILABLE', () => {
    const error = engineError('list services', Object.assign(new Error('connect ENOENT /x.sock'), { code: 'ENOENT' }));
    expect(error).toMatchObject({ code: 'SVC_SWARM_UNAVAILABLE', kind: 'retryable', details: { operation: 'list services' } });
    expect(error.message).toContain('ENOENT');
  });
  it('503 (not a swarm manager) is SVC_SWARM_UNAVAILABLE with the engine message', () => {
    const error = engineError('list services', answered(503, 'This node is not a swarm manager.'));
    expect(error).toMatchObject({ code: 'SVC_SWARM_UNAVAILABLE', details: { status: 503 } });
    expect(error.message).toContain('not a swarm manager');
  });
  it('any other answer is SVC_SWARM_REQUEST_FAILED carrying the status', () => {
    const error = engineError('create network n', answered(409, 'network with name n already exists'));
    expect(error).toMatchObject({ code: 'SVC_SWARM_REQUEST_FAILED', kind: 'fatal', details: { operation: 'create network n', status: 409 } });
    expect(error.message).toBe('create network n: the engine answered 409: network with name n already exists');
  });
  it('an SvcError passes through unchanged', () => {
    const original = new SvcError('SVC_RUNNER_CONFIG', 'bad host');
    expect(engineError('x', original)).toBe(original);
  });
});
