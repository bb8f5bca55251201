import { gunzipSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultArtifactLimits, packArtifact } from '../../src/artifacts/index.js';
import { MemorySink } from '../../src/artifacts/content-sink.js';
import { DocumentParser } from '../../src/artifacts/document-parser.js';
import { cleanupApps, makeApp } from './make-app.js';

afterAll(cleanupApps);

describe('DocumentParser (streaming)', () => {
  let document: Buffer;
  let expected: ReturnType<DocumentParser['finish']>;
  let expectedContents: string[];
  beforeAll(async () => {
    const packed = await packArtifact(await makeApp());
    document = gunzipSync(packed.bytes);
    const sink = new MemorySink();
    const whole = new DocumentParser(defaultArtifactLimits, sink);
    whole.push(document);
    expected = whole.finish();
    expectedContents = sink.contents.map((c) => c.toString('base64'));
  });

  it('gives the same result however the bytes are split (down to single bytes)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 300 }), { minLength: 1, maxLength: 200 }), (sizes) => {
        const sink = new MemorySink();
        const parser = new DocumentParser(defaultArtifactLimits, sink);
        let pos = 0;
        for (let i = 0; pos < document.length; i++) {
          const size = sizes[i % sizes.length]!;
          parser.push(document.subarray(pos, pos + size));
          pos += size;
        }
        const result = parser.finish();
        expect(result.document).toEqual(expected.document);
        expect(sink.contents.map((c) => c.toString('base64'))).toEqual(expectedContents);
      }),
      { numRuns: 60 },
    );
    const bytewise = new DocumentParser(defaultArtifactLimits);
    for (let i = 0; i < document.length; i++) bytewise.push(document.subarray(i, i + 1));
    expect(bytewise.finish().document).toEqual(expected.document);
  });

  it('rejects any single-byte change inside file contents (free-form strings like env values may change legitimately)', () => {
    const ranges: [number, number][] = [];
    const marker = Buffer.from(',"content":"');
    for (let at = document.indexOf(marker); at >= 0; at = document.indexOf(marker, at + 1)) {
      const start = at + marker.length;
      const end = document.indexOf('"', start);
      if (end > start) ranges.push([start, end]);
    }
    expect(ranges.length).toBeGreaterThan(3);
    fc.assert(
      fc.property(fc.nat(), fc.nat(), fc.integer({ min: 1, max: 255 }), (r, at, delta) => {
        const [start, end] = ranges[r % ranges.length]!;
        const index = start + (at % (end - start));
        const mutated = Buffer.from(document);
        mutated[index] = (mutated[index]! + delta) & 0xff;
        const parser = new DocumentParser(defaultArtifactLimits);
        expect(() => {
          parser.push(mutated);
          parser.finish();
        }).toThrow(expect.objectContaining({ code: expect.stringMatching(/^SVC_ARTIFACT_(FILE_DIGEST_MISMATCH|NOT_CANONICAL|SIZE_MISMATCH|MALFORMED)$/) }));
      }),
      { numRuns: 500 },
    );
  });
});
