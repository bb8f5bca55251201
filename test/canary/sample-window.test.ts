import { describe, expect, it } from 'vitest';
import { SAMPLES_PER_STAGE, SampleWindow, isErrorResponse, type CompletedRequest } from '../../src/canary/sample-window.js';

const record = (over: Partial<CompletedRequest> = {}): CompletedRequest => ({
  releaseId: 'rel_c',
  generation: 5,
  status: 200,
  latencyMs: 3,
  aborted: false,
  streamError: false,
  ...over,
});

describe('SampleWindow', () => {
  it('keeps candidate completions of the current stage only', () => {
    const w = new SampleWindow();
    w.begin('rel_c', 5);
    expect(w.offer(record())).toBe(true);
    expect(w.offer(record({ generation: 7 }))).toBe(true);
    expect(w.offer(record({ releaseId: 'rel_prior' }))).toBe(false);
    expect(w.offer(record({ releaseId: null }))).toBe(false);
    expect(w.offer(record({ generation: 4 }))).toBe(false); // dispatched in an earlier stage, completed late
    expect(w.samples()).toHaveLength(2);
  });

  it('does not count client cancellations', () => {
    const w = new SampleWindow();
    w.begin('rel_c', 1);
    expect(w.offer(record({ aborted: true, status: 200 }))).toBe(false);
    expect(w.offer(record({ aborted: true, status: 0 }))).toBe(false);
    expect(w.samples()).toHaveLength(0);
    expect(w.cancelled).toBe(2);
  });

  it('marks 5xx, missing responses and stream errors as errors', () => {
    expect(isErrorResponse(record({ status: 500 }))).toBe(true);
    expect(isErrorResponse(record({ status: 503 }))).toBe(true);
    expect(isErrorResponse(record({ status: 0 }))).toBe(true);
    expect(isErrorResponse(record({ status: 200, streamError: true }))).toBe(true);
    expect(isErrorResponse(record({ status: 404 }))).toBe(false);
    expect(isErrorResponse(record({ status: 200 }))).toBe(false);
  });

  it('retains the newest samples up to the capacity', () => {
    const w = new SampleWindow(3);
    w.begin('rel_c', 0);
    for (let i = 1; i <= 5; i++) w.offer(record({ latencyMs: i }));
    expect(
      w
        .samples()
        .map((s) => s.latencyMs)
        .sort(),
    ).toEqual([3, 4, 5]);
    expect(w.accepted).toBe(5);
  });

  it('retains 10,000 samples per stage by default and forgets them on a new stage', () => {
    const w = new SampleWindow();
    w.begin('rel_c', 0);
    for (let i = 0; i < SAMPLES_PER_STAGE + 500; i++) w.offer(record({ latencyMs: i }));
    expect(SAMPLES_PER_STAGE).toBe(10_000);
    expect(w.samples()).toHaveLength(10_000);
    expect(Math.min(...w.samples().map((s) => s.latencyMs))).toBe(500);
    w.begin('rel_c', 9);
    expect(w.samples()).toHaveLength(0);
    expect(w.offer(record({ generation: 8 }))).toBe(false);
  });

  it('accepts nothing before a stage began', () => {
    const w = new SampleWindow();
    expect(w.offer(record())).toBe(false);
    expect(() => new SampleWindow(0)).toThrow(RangeError);
  });
});
