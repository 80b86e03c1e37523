// MaxPool and AveragePool (2-D float32, static shapes: the wasm-simd kernels with a recorded
// pool_plan) against onnxruntime-node on odd plane sizes, every padding form, kernels 2, 3 and 5,
// strides 1 and 2, ceil_mode, dilations and count_include_pad, on 1–3 planes and on many channels.
import { describe, it } from 'vitest';
import { expectLikeOrt, lcg, randomFloats } from '../transformer/ort-compare.fixture.js';
import { type Attr, singleNodeModel } from '../transformer/single-node-model.fixture.js';

const random = lcg(1307);

interface Window {
  readonly label: string;
  readonly attrs: readonly Attr[];
}
const window = (k: number, stride: number, extra: readonly Attr[] = []): Window => ({
  label: `${k}×${k} stride ${stride}${extra.map((a) => ` ${a.name}=${'ints' in a ? a.ints : 'int' in a ? a.int : 'string' in a ? a.string : ''}`).join('')}`,
  attrs: [{ name: 'kernel_shape', ints: [k, k] }, { name: 'strides', ints: [stride, stride] }, ...extra],
});
const pads = (p: readonly number[]): Attr => ({ name: 'pads', ints: p });

const windows: readonly Window[] = [
  window(3, 1, [pads([1, 1, 1, 1])]),
  window(3, 2, [pads([1, 1, 1, 1])]),
  window(2, 1),
  window(2, 2),
  window(2, 1, [pads([1, 0, 0, 1])]),
  window(5, 1, [pads([2, 2, 2, 2])]),
  window(5, 2, [pads([1, 2, 3, 4])]),
  window(3, 1, [pads([0, 2, 2, 0])]),
  window(3, 2, [{ name: 'ceil_mode', int: 1 }]),
  window(3, 2, [pads([1, 1, 1, 1]), { name: 'ceil_mode', int: 1 }]),
  window(3, 1, [{ name: 'auto_pad', string: 'SAME_UPPER' }]),
  window(2, 2, [{ name: 'auto_pad', string: 'SAME_LOWER' }]),
  window(3, 1, [pads([2, 2, 2, 2]), { name: 'dilations', ints: [2, 2] }]),
  window(3, 2, [pads([1, 1, 1, 1]), { name: 'dilations', ints: [1, 2] }]),
];
// odd sizes and plane counts 1–3, then many channels on 2 threads (several plane runs)
const shapes: readonly (readonly [readonly number[], number])[] = [
  [[1, 1, 7, 7], 1],
  [[1, 2, 13, 11], 1],
  [[1, 3, 5, 9], 1],
  [[2, 3, 17, 6], 1],
  [[1, 96, 14, 14], 2],
  [[1, 40, 28, 27], 2],
];

describe('MaxPool and AveragePool against onnxruntime-node', () => {
  for (const w of windows) {
    it(w.label, async () => {
      for (const [dims, threads] of shapes) {
        const x = randomFloats('float32', [...dims], random);
        const cases: readonly (readonly [string, readonly Attr[], number])[] = [
          ['MaxPool', [], 0],
          ['AveragePool', [{ name: 'count_include_pad', int: 0 }], 1e-6],
          ['AveragePool', [{ name: 'count_include_pad', int: 1 }], 1e-6],
        ];
        for (const [opType, extra, tolerance] of cases) {
          const bytes = singleNodeModel(
            opType,
            '',
            [{ name: 'x', type: 'float32', dims }],
            [{ name: 'y', type: 'float32', dims: ['n', 'c', 'h', 'w'] }],
            [...w.attrs, ...extra],
          );
          const label = `${opType} ${extra.map((a) => `${a.name}=${'int' in a ? a.int : ''}`).join('')} ${w.label} on [${dims}]`;
          await expectLikeOrt({ label, bytes, feeds: { x }, outputs: ['y'], tolerance, threads });
        }
      }
    });
  }
});
