import { describe, expect, it } from 'vitest';
import { classifyError } from '../classify.js';
import { mutateBytes } from '../mutate/bytes.js';
import { createRng } from '../rng.js';
import { mutateBundle, readBundle, shrinkBundle, writeBundle } from './bundle.js';
import { throwIfErrors } from './shared.js';

const parts = [
  { name: 'model.json', bytes: new TextEncoder().encode('{"a":1}') },
  { name: 'weights.bin', bytes: new Uint8Array([1, 2, 3, 4]) },
];

describe('fuzz bundles', () => {
  it('round-trip their named parts', () => {
    expect(readBundle(writeBundle(parts))).toEqual(parts);
  });

  it('stay readable through mutation and shrinking, keeping every name', () => {
    let bytes = writeBundle(parts);
    const rng = createRng(7);
    for (let i = 0; i < 200; i++) {
      bytes = mutateBundle(bytes, rng, () => mutateBytes);
      expect(readBundle(bytes).map((p) => p.name)).toEqual(['model.json', 'weights.bin']);
    }
    for (const smaller of shrinkBundle(
      bytes,
      () =>
        function* (b) {
          yield b.subarray(1);
        },
    ))
      expect(readBundle(smaller)[0]?.name).toBe('model.json');
  });

  it('refuse a file that is not one', () => {
    expect(() => readBundle(new Uint8Array([1, 2, 3]))).toThrow('not a fuzz bundle');
  });
});

describe('throwIfErrors', () => {
  it('turns a catch-all diagnostic naming a TypeError back into an engine error', () => {
    let thrown: unknown;
    try {
      throwIfErrors([{ code: 'TSGE-E3003', severity: 'error', message: 'malformed model: TypeError: x is not a function' }]);
    } catch (e) {
      thrown = e;
    }
    expect(classifyError(thrown)).toMatchObject({ outcome: 'engine', errorName: 'TypeError' });
  });

  it('keeps other errors coded and ignores warnings', () => {
    expect(() => throwIfErrors([{ code: 'TSGE-E3201', severity: 'warning', message: 'unknown field TypeError: no' }])).not.toThrow();
    let thrown: unknown;
    try {
      throwIfErrors([{ code: 'TSGE-E3201', severity: 'error', message: 'prototxt line 1: unexpected end of file' }]);
    } catch (e) {
      thrown = e;
    }
    expect(classifyError(thrown)).toMatchObject({ outcome: 'coded', code: 'TSGE-E3201' });
  });
});
