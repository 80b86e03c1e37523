import { bfloat16ToNumber, float16ToNumber, numberToBfloat16, numberToFloat16 } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { readOm } from './read-om.js';
import { sampleModel } from './test-model.js';
import type { OmWriteInput, WeightStorage } from './types.js';
import { WEIGHT_SPAN } from './weight-storage.js';
import { writeOm } from './write-om.js';

const VALUES = [1, -2, 3.3, -4e-3];

/** The sample model with w stored as float16 (or bfloat16) bits, 8 bytes for 16 in device memory. */
function narrowModel(kind: 1 | 2, storage?: Partial<WeightStorage>): OmWriteInput {
  const input = sampleModel();
  const bits = Uint16Array.from(VALUES, kind === 1 ? numberToFloat16 : numberToBfloat16);
  const weights = new Uint8Array(64);
  weights.set(new Uint8Array(bits.buffer));
  const weightStorage: WeightStorage = { deviceBytes: 64, spans: [[0, 0, 4, kind]], ...storage };
  return { ...input, weights, taskInfo: { ...input.taskInfo, weightStorage } };
}

describe('weights stored narrow', () => {
  it('widens float16 and bfloat16 spans to float32 at read, in the layout the plans address', () => {
    for (const kind of [WEIGHT_SPAN.float16, WEIGHT_SPAN.bfloat16] as const) {
      const { model, diagnostics } = readOm(writeOm(narrowModel(kind)));
      expect(diagnostics).toEqual([]);
      const w = new Float32Array(model?.weights.buffer as ArrayBuffer, model?.weights.byteOffset, 4);
      const to = kind === WEIGHT_SPAN.float16 ? numberToFloat16 : numberToBfloat16;
      const back = kind === WEIGHT_SPAN.float16 ? float16ToNumber : bfloat16ToNumber;
      expect([...w]).toEqual(VALUES.map((v) => Math.fround(back(to(v)))));
      expect(model?.weights.length).toBe(64);
    }
  });

  it('copies kind-0 spans as bytes', () => {
    const input = sampleModel();
    const { model } = readOm(
      writeOm({ ...input, taskInfo: { ...input.taskInfo, weightStorage: { deviceBytes: 64, spans: [[0, 0, 16, 0]] } } }),
    );
    expect([...new Float32Array(model?.weights.buffer as ArrayBuffer, model?.weights.byteOffset, 4)]).toEqual([1, -2, 3, -4]);
  });

  it('refuses a table it cannot apply with TSGE-E7120', () => {
    const bad: [Partial<WeightStorage>, RegExp][] = [
      [{ spans: [[0, 0, 400, 1]] }, /reads past the end of WEIGHTS/],
      [{ spans: [[0, 2, 4, 1]] }, /not aligned/],
      [{ spans: [[0, 0, 4, 7]] }, /kind 7/],
      [
        {
          spans: [
            [0, 32, 4, 1],
            [8, 16, 4, 1],
          ],
        },
        /overlaps/,
      ],
      [{ deviceBytes: 8 }, /writes past deviceBytes/],
      [{ deviceBytes: -1 }, /deviceBytes is invalid/],
      [{ spans: [[0, 0, 4]] as never }, /not four counts/],
      // the plans address 16 bytes of weights; a table that makes fewer is refused by the bounds check
      [{ deviceBytes: 8, spans: [[0, 0, 2, 1]] }, /outside the weights/],
    ];
    for (const [storage, message] of bad) {
      const { model, diagnostics } = readOm(writeOm(narrowModel(1, storage)));
      expect(model).toBeUndefined();
      expect(diagnostics[0]?.message).toMatch(message);
      if (!/outside the weights/.test(String(message))) expect(diagnostics[0]?.code).toBe('TSGE-E7120');
    }
  });
});
