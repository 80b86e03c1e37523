// QLinearMatMul (ONNX) on the integer SIMD GEMM with its requantizing store, in the executor with
// worker tiles, against onnxruntime-node: outputs are bytes, so they must be identical.
import type { HostTensor } from '@tsge/metadef';
import { describe, it } from 'vitest';
import { expectLikeOrt, lcg } from '../transformer/ort-compare.fixture.js';
import { type Operand, singleNodeModel } from '../transformer/single-node-model.fixture.js';

const bytesOf = (type: 'uint8' | 'int8', dims: number[], random: () => number): HostTensor => {
  const n = dims.reduce((a, b) => a * b, 1);
  const v = Array.from({ length: n }, () => Math.floor(random() * 256) - (type === 'int8' ? 128 : 0));
  return { type, dims, data: type === 'int8' ? Int8Array.from(v) : Uint8Array.from(v) };
};
const scalar = (type: 'uint8' | 'int8' | 'float32', v: number): HostTensor => ({
  type,
  dims: [],
  data: type === 'float32' ? Float32Array.of(v) : type === 'int8' ? Int8Array.of(v) : Uint8Array.of(v),
});
const operand = (name: string, t: HostTensor): Operand => ({ name, type: t.type as Operand['type'], dims: [...t.dims] });

describe('QLinearMatMul vs onnxruntime-node', () => {
  const cases = [
    { name: 'uint8 [64, 200]·[200, 96] → uint8', a: [64, 200], b: [200, 96], type: 'uint8' as const, threads: 2 },
    { name: 'int8 batched [3, 17, 45]·[45, 70] → int8', a: [3, 17, 45], b: [45, 70], type: 'int8' as const, threads: 1 },
  ];
  for (const c of cases)
    it(c.name, async () => {
      const random = lcg(c.a[0]! * 7 + c.b[1]!);
      const K = c.b[0]!;
      const feeds: Record<string, HostTensor> = {
        a: bytesOf(c.type, c.a, random),
        a_scale: scalar('float32', 0.02),
        a_zero_point: scalar(c.type, c.type === 'int8' ? -3 : 131),
        b: bytesOf(c.type, c.b, random),
        b_scale: scalar('float32', 0.015),
        b_zero_point: scalar(c.type, c.type === 'int8' ? 9 : 120),
        // sums of K products of about ±75² spread over the output range, some saturating
        y_scale: scalar('float32', (0.02 * 0.015 * Math.sqrt(K) * 75 * 75) / 90),
        y_zero_point: scalar(c.type, c.type === 'int8' ? 4 : 125),
      };
      const names = ['a', 'a_scale', 'a_zero_point', 'b', 'b_scale', 'b_zero_point', 'y_scale', 'y_zero_point'];
      const outDims = [...c.a.slice(0, -1), c.b[1]!];
      await expectLikeOrt({
        label: `QLinearMatMul ${c.name}`,
        bytes: singleNodeModel(
          'QLinearMatMul',
          '',
          names.map((n) => operand(n, feeds[n] as HostTensor)),
          [{ name: 'y', type: c.type, dims: outDims }],
          [],
        ),
        feeds,
        outputs: ['y'],
        tolerance: 0,
        threads: c.threads,
      });
    }, 60_000);
});
