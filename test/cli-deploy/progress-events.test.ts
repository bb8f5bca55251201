// Live progress rendering without a terminal, server or clock: each phase event as a JSON line, a
// plain line or the redrawn spinner line, the result line, and which writes each mode makes.
import { describe, expect, it } from 'vitest';
import { startPhaseProgress, type PhaseSink } from '../../cli/phase-progress.js';
import { describePhase, formatElapsed, phaseJsonLine, phaseLine, resultJsonLine, spinnerLine, type PhaseEvent } from '../../cli/progress-events.js';

const health: PhaseEvent = { event: 'phase', phase: 'health', elapsedMs: 3250, releaseId: 'rel_1', at: '2030-01-01T00:00:03.000Z' };

describe('progress events', () => {
  it('formats elapsed times in tenths of seconds, then minutes', () => {
    expect(formatElapsed(0)).toBe('0.0s');
    expect(formatElapsed(-5)).toBe('0.0s');
    expect(formatElapsed(3250)).toBe('3.3s');
    expect(formatElapsed(59_940)).toBe('59.9s');
    expect(formatElapsed(125_000)).toBe('2m05s');
  });

  it('describes known phases and shows unknown ones by name', () => {
    expect(describePhase('migrate')).toBe('migrate — running migrations');
    expect(describePhase('warp-drive')).toBe('warp-drive');
  });

  it('renders a plain line per phase with the elapsed time', () => {
    expect(phaseLine(health)).toBe('[  3.3s] health — waiting for the health check');
    expect(phaseLine({ event: 'phase', phase: 'upload', elapsedMs: 125_000 })).toBe('[ 2m05s] upload — uploading the artifact');
  });

  it('renders the spinner line with the time so far, a detail replacing the description', () => {
    expect(spinnerLine(0, health, 4000)).toBe('⠋ health — waiting for the health check · 4.0s');
    expect(spinnerLine(11, health, 4000, 'Uploading 1.0 KiB / 2.0 KiB')).toBe('⠙ Uploading 1.0 KiB / 2.0 KiB · 4.0s');
  });

  it('writes a phase as one JSON line and the result as the document plus "event": "result"', () => {
    expect(phaseJsonLine(health)).toBe(`${JSON.stringify(health)}\n`);
    const line = resultJsonLine({ release: { id: 'rel_1' }, created: true });
    expect(line.endsWith('\n')).toBe(true);
    expect(line.trimEnd()).not.toContain('\n');
    expect(JSON.parse(line)).toEqual({ event: 'result', release: { id: 'rel_1' }, created: true });
    expect(JSON.parse(resultJsonLine([1, 2]))).toEqual({ event: 'result', value: [1, 2] });
  });
});

function recordingSink(mode: PhaseSink['mode']) {
  let now = 1000;
  const writes: Array<[string, string]> = [];
  const sink: PhaseSink = {
    mode,
    stdoutLine: (line) => writes.push(['stdout', line]),
    stderrLine: (line) => writes.push(['stderr', line]),
    draw: (text) => writes.push(['draw', text]),
    now: () => now,
  };
  return { sink, writes, advance: (ms: number) => (now += ms) };
}

describe('startPhaseProgress', () => {
  it('--json: one JSON line on stdout per phase change, elapsed from the command start', () => {
    const { sink, writes, advance } = recordingSink('json');
    const phases = startPhaseProgress(sink, 500);
    phases.phase('upload');
    phases.detail('Uploading 1 KiB / 2 KiB');
    advance(1500);
    phases.phase('health', { releaseId: 'rel_1' });
    phases.phase('health', { releaseId: 'rel_1' }); // the step reported again when it finishes
    phases.stop();
    expect(writes).toEqual([
      ['stdout', '{"event":"phase","phase":"upload","elapsedMs":500}\n'],
      ['stdout', '{"event":"phase","phase":"health","elapsedMs":2000,"releaseId":"rel_1"}\n'],
    ]);
  });

  it('off a terminal: one plain line on stderr per phase change, nothing redrawn', () => {
    const { sink, writes, advance } = recordingSink('lines');
    const phases = startPhaseProgress(sink, 1000);
    phases.phase('rollback');
    advance(2500);
    phases.phase('restore');
    phases.stop();
    expect(writes).toEqual([
      ['stderr', '[  0.0s] rollback — rolling back (the target starts and must pass its health check)\n'],
      ['stderr', '[  2.5s] restore — restoring the database\n'],
    ]);
  });

  it('on a terminal: redraws one line, with the first detail of a phase drawn at once', () => {
    const { sink, writes, advance } = recordingSink('terminal');
    const phases = startPhaseProgress(sink, 1000);
    phases.phase('upload');
    advance(200);
    phases.detail('Uploading 64.0 KiB / 300.0 KiB');
    phases.detail('Uploading 128.0 KiB / 300.0 KiB'); // later details wait for the next frame
    phases.detail(); // cleared (a step's own progress ended): the next detail is drawn at once again
    phases.detail('Packing walk 1/1');
    phases.stop();
    expect(writes).toEqual([
      ['draw', '⠋ upload — uploading the artifact · 0.0s'],
      ['draw', '⠙ Uploading 64.0 KiB / 300.0 KiB · 0.2s'],
      ['draw', '⠹ Packing walk 1/1 · 0.2s'],
    ]);
  });

  it('on a terminal: the line keeps moving between phase changes until stopped', async () => {
    const { sink, writes } = recordingSink('terminal');
    const phases = startPhaseProgress(sink, 1000);
    phases.phase('health');
    await expect.poll(() => writes.length, { timeout: 5000 }).toBeGreaterThanOrEqual(3);
    phases.stop();
    const drawn = writes.length;
    expect(writes[1]![1]).toMatch(/^⠙ health — waiting for the health check · /);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(writes).toHaveLength(drawn);
  });
});
