// The drop-in test: one program written for onnxruntime-node (drop-in-script.fixture.ts) runs on
// onnxruntime-node and then with only its import switched to @tsge/adapter-onnxruntime; the
// transcripts must agree (outputs to 1e-4, names, metadata, errors in onnxruntime's words).
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import type { Transcript } from './drop-in-script.fixture.js';

const testdata = path.resolve(process.cwd(), '../shared/testdata');
const mnist = path.join(testdata, 'models/onnx/mnist.onnx');
const node = path.join(testdata, 'onnx-backend/node');

async function transcript(switched: boolean): Promise<Transcript> {
  vi.resetModules();
  if (switched) vi.doMock('onnxruntime-node', () => import('./index.js'));
  else vi.doUnmock('onnxruntime-node');
  const { runScript } = await import('./drop-in-script.fixture.js');
  return runScript(mnist, node);
}

type ErrorStep = { name: string; message: string } | 'no error';

/** Numbers within 1e-4 (relative to magnitude), everything else equal. */
function expectClose(actual: unknown, expected: unknown, where: string): void {
  if (typeof expected === 'number' && typeof actual === 'number') {
    expect(Math.abs(actual - expected), where).toBeLessThanOrEqual(1e-4 * Math.max(1, Math.abs(expected)));
  } else if (Array.isArray(expected)) {
    expect(Array.isArray(actual), where).toBe(true);
    expect((actual as unknown[]).length, `${where}.length`).toBe(expected.length);
    for (const [i, e] of expected.entries()) expectClose((actual as unknown[])[i], e, `${where}[${i}]`);
  } else if (expected && typeof expected === 'object') {
    expect(Object.keys(actual as object).sort(), where).toEqual(Object.keys(expected).sort());
    for (const [k, e] of Object.entries(expected)) expectClose((actual as Record<string, unknown>)[k], e, `${where}.${k}`);
  } else {
    expect(actual, where).toEqual(expected);
  }
}

describe('drop-in for onnxruntime-node', () => {
  it('gives the same results with only the import switched', async () => {
    const reference = (await transcript(false)).steps;
    const adapter = (await transcript(true)).steps;
    vi.doUnmock('onnxruntime-node');
    for (const step of [
      'names',
      'metadata',
      'inputTensor',
      'run',
      'runWithFetches',
      'preallocated',
      'runWithOptions',
      'extraFeedIgnored',
      'reshaped',
      'roundTrips',
    ]) {
      expectClose(adapter[step], reference[step], step);
    }
    // errors: the same kind of failure; tsge's message contains onnxruntime's wording
    const errors = {
      ...(reference.errors as Record<string, ErrorStep>),
      afterRelease: reference.afterRelease as ErrorStep,
      releaseTwice: reference.releaseTwice as ErrorStep,
    };
    const ours: Record<string, ErrorStep> = {
      ...(adapter.errors as Record<string, ErrorStep>),
      afterRelease: adapter.afterRelease as ErrorStep,
      releaseTwice: adapter.releaseTwice as ErrorStep,
    };
    for (const [name, expected] of Object.entries(errors)) {
      const actual = ours[name] as ErrorStep;
      expect(expected, `onnxruntime-node fails on ${name}`).not.toBe('no error');
      expect(actual, `the adapter fails on ${name}`).not.toBe('no error');
      if (expected === 'no error' || actual === 'no error') continue;
      if (['wrongType', 'wrongDims', 'wrongRank', 'wrongPreallocatedDims', 'wrongPreallocatedType'].includes(name)) {
        expect(actual.message, name).toContain(expected.message);
        expect(actual.message, name).toMatch(/TSGE-E82\d\d/);
      } else if (name === 'afterRelease' || name === 'releaseTwice') {
        expect(actual.message).toMatch(/already disposed/);
      } else {
        expect(actual, name).toEqual(expected); // onnxruntime-common's own checks, the same code path
      }
    }
    expect(adapter.missingFile).toMatchObject({
      message: expect.stringMatching(/^TSGE-E3001.*Load model from .*mnist\.onnx\.missing failed|Load model from .*failed: TSGE-E3001/),
    });
    expect((reference.missingFile as { message: string }).message).toMatch(/Load model from .*failed/);
  }, 120_000);
});
