// com.microsoft quantized-weight ops on random inputs against onnxruntime-node: MatMulNBits
// (4-bit and 8-bit blockwise, packed or float zero points, partial last block, g_idx, bias, fp16),
// GatherBlockQuantized (4-bit packed and 8-bit, zero points) and DynamicQuantizeMatMul.
import { type HostTensor, numberToFloat16 } from '@tsge/metadef';
import { describe, it } from 'vitest';
import { expectLikeOrt, int32s, int64s, lcg, randomBytes, randomFloats } from './ort-compare.fixture.js';
import { type Attr, type Operand, singleNodeModel } from './single-node-model.fixture.js';

const MS = 'com.microsoft';
const op = (name: string, type: Operand['type'], dims: (number | string)[]): Operand => ({ name, type, dims });
const operand = (name: string, t: HostTensor): Operand => ({ name, type: t.type as Operand['type'], dims: [...t.dims] });

/** Positive scales in [0.01, 0.11), as quantizers write them. */
function scalesOf(type: 'float32' | 'float16', dims: number[], random: () => number): HostTensor {
  const n = dims.reduce((a, b) => a * b, 1);
  const v = Array.from({ length: n }, () => 0.01 + random() * 0.1);
  return type === 'float32' ? { type, dims, data: Float32Array.from(v) } : { type, dims, data: Uint16Array.from(v, numberToFloat16) };
}

interface NBitsCase {
  name: string;
  type: 'float32' | 'float16';
  K: number;
  N: number;
  blockSize: number;
  bits?: number;
  zeroPoints?: 'packed' | 'float';
  bias?: boolean;
  accuracyLevel?: number;
  threads?: number;
}

const nbitsCases: NBitsCase[] = [
  { name: '4-bit, no zero points', type: 'float32', K: 64, N: 8, blockSize: 32 },
  { name: '4-bit, packed zero points, bias', type: 'float32', K: 64, N: 6, blockSize: 16, zeroPoints: 'packed', bias: true },
  { name: '4-bit, partial last block, odd block count', type: 'float32', K: 40, N: 5, blockSize: 16, zeroPoints: 'packed' },
  {
    name: '4-bit, block 64, partial last block, zero points, bias',
    type: 'float32',
    K: 100,
    N: 12,
    blockSize: 64,
    zeroPoints: 'packed',
    bias: true,
  },
  { name: '4-bit, float zero points', type: 'float32', K: 64, N: 4, blockSize: 32, zeroPoints: 'float' },
  { name: '4-bit, fp16 activations', type: 'float16', K: 64, N: 8, blockSize: 32, zeroPoints: 'packed' },
  { name: '8-bit, packed zero points', type: 'float32', K: 64, N: 4, blockSize: 32, bits: 8, zeroPoints: 'packed' },
  // columns split into tiles run by two worker threads
  { name: '4-bit, split across 2 threads', type: 'float32', K: 512, N: 1024, blockSize: 32, zeroPoints: 'packed', threads: 2 },
  // onnxruntime quantizes A to int8 per block at level 4; tsge keeps float32 (a level is a minimum)
  { name: '4-bit, accuracy_level 4', type: 'float32', K: 64, N: 8, blockSize: 32, zeroPoints: 'packed', accuracyLevel: 4 },
];

describe('MatMulNBits vs onnxruntime-node', () => {
  for (const c of nbitsCases)
    it(c.name, async () => {
      const random = lcg(c.K * 13 + c.N + (c.bits ?? 4));
      const bits = c.bits ?? 4;
      const blocks = Math.ceil(c.K / c.blockSize);
      const feeds: Record<string, HostTensor> = {
        A: randomFloats(c.type, [2, 3, c.K], random),
        B: randomBytes([c.N, blocks, (c.blockSize * bits) / 8], random),
        scales: scalesOf(c.type, [c.N * blocks], random),
      };
      if (c.zeroPoints === 'packed') feeds.zero_points = randomBytes([c.N * Math.ceil((blocks * bits) / 8)], random);
      if (c.zeroPoints === 'float') {
        const z = Array.from({ length: c.N * blocks }, () => Math.floor(random() * 16));
        feeds.zero_points = { type: 'float32', dims: [c.N * blocks], data: Float32Array.from(z) };
      }
      if (c.bias) feeds.bias = randomFloats(c.type, [c.N], random);
      const names = ['A', 'B', 'scales', 'zero_points', 'g_idx', 'bias'];
      const inputs = names.map((n) => (feeds[n] ? operand(n, feeds[n] as HostTensor) : undefined));
      while (inputs[inputs.length - 1] === undefined) inputs.pop();
      const attrs: Attr[] = [
        { name: 'K', int: c.K },
        { name: 'N', int: c.N },
        { name: 'bits', int: bits },
        { name: 'block_size', int: c.blockSize },
        { name: 'accuracy_level', int: c.accuracyLevel ?? 0 },
      ];
      await expectLikeOrt({
        label: `MatMulNBits ${c.name}`,
        bytes: singleNodeModel('MatMulNBits', MS, inputs, [op('Y', c.type, [2, 3, c.N])], attrs),
        feeds,
        outputs: ['Y'],
        tolerance: c.type === 'float16' || c.accuracyLevel === 4 ? 5e-2 : 1e-4,
        ...(c.threads ? { threads: c.threads } : {}),
      });
    }, 60_000);
});

describe('GatherBlockQuantized vs onnxruntime-node', () => {
  const cases = [
    { name: '4-bit packed, gather rows, zero points', bits: 4, dims: [10, 64], gatherAxis: 0, quantizeAxis: 1, zeros: true },
    { name: '4-bit packed, default zero point, int32 indices', bits: 4, dims: [6, 32], gatherAxis: 0, quantizeAxis: 1, zeros: false },
    { name: '8-bit, 3-D data, zero points', bits: 8, dims: [5, 3, 32], gatherAxis: 0, quantizeAxis: 2, zeros: true },
  ];
  for (const c of cases)
    it(c.name, async () => {
      const random = lcg(c.dims[0] as number);
      const perByte = 8 / c.bits;
      const stored = c.dims.map((d, i) => (i === c.dims.length - 1 ? d / perByte : d));
      const blockSize = 16;
      const scaleDims = c.dims.map((d, i) => (i === c.quantizeAxis ? Math.ceil(d / blockSize) : d));
      const axisLen = c.dims[c.gatherAxis] as number;
      const indexValues = [0, axisLen - 1, 2, -1, 1, 3];
      const feeds: Record<string, HostTensor> = {
        data: randomBytes(stored, random),
        indices: c.bits === 4 && !c.zeros ? int32s([2, 3], indexValues) : int64s([2, 3], indexValues),
        scales: scalesOf('float32', scaleDims, random),
      };
      if (c.zeros)
        feeds.zero_points = randomBytes(
          scaleDims.map((d, i) => (i === scaleDims.length - 1 ? Math.ceil(d / perByte) : d)),
          random,
        );
      const outDims = [...c.dims.slice(0, c.gatherAxis), 2, 3, ...c.dims.slice(c.gatherAxis + 1)];
      await expectLikeOrt({
        label: `GatherBlockQuantized ${c.name}`,
        bytes: singleNodeModel(
          'GatherBlockQuantized',
          MS,
          ['data', 'indices', 'scales', 'zero_points']
            .map((n) => (feeds[n] ? operand(n, feeds[n] as HostTensor) : undefined))
            .filter((o) => o),
          [op('output', 'float32', outDims)],
          [
            { name: 'bits', int: c.bits },
            { name: 'block_size', int: blockSize },
            { name: 'gather_axis', int: c.gatherAxis },
            { name: 'quantize_axis', int: c.quantizeAxis },
          ],
        ),
        feeds,
        outputs: ['output'],
        tolerance: 1e-6,
      });
    }, 60_000);
});

describe('DynamicQuantizeMatMul vs onnxruntime-node', () => {
  const cases = [
    { name: 'int8 B, per-column scale, bias', type: 'int8' as const, perColumn: true, zero: false, bias: true },
    { name: 'uint8 B, scalar scale and zero point', type: 'uint8' as const, perColumn: false, zero: true, bias: false },
    { name: 'int8 B, per-column zero points', type: 'int8' as const, perColumn: true, zero: true, bias: false },
  ];
  for (const c of cases)
    it(c.name, async () => {
      const random = lcg(c.name.length);
      const [K, N] = [24, 7];
      const raw = randomBytes([K, N], random).data as Uint8Array;
      // int8 weights in [-64, 63]: onnxruntime's u8·s8 x86 kernels saturate int16 pair sums beyond
      // that (its quantizer's reduce_range exists for this reason)
      const b: HostTensor =
        c.type === 'uint8'
          ? { type: 'uint8', dims: [K, N], data: raw }
          : { type: 'int8', dims: [K, N], data: Int8Array.from(raw, (v) => (v >> 1) - 64) };
      const n = c.perColumn ? N : 1;
      const feeds: Record<string, HostTensor> = {
        A: randomFloats('float32', [2, 3, K], random),
        B: b,
        b_scale: scalesOf('float32', c.perColumn ? [N] : [], random),
      };
      if (c.zero) {
        const z = Array.from(
          { length: n },
          () => Math.floor(random() * 20) - (c.type === 'int8' ? 10 : 0) + (c.type === 'uint8' ? 120 : 0),
        );
        feeds.b_zero_point =
          c.type === 'uint8'
            ? { type: 'uint8', dims: c.perColumn ? [N] : [], data: Uint8Array.from(z) }
            : { type: 'int8', dims: [N], data: Int8Array.from(z) };
      }
      if (c.bias) feeds.bias = randomFloats('float32', [N], random);
      const inputs = ['A', 'B', 'b_scale', 'b_zero_point', 'bias'].map((k) => (feeds[k] ? operand(k, feeds[k] as HostTensor) : undefined));
      while (inputs[inputs.length - 1] === undefined) inputs.pop();
      await expectLikeOrt({
        label: `DynamicQuantizeMatMul ${c.name}`,
        bytes: singleNodeModel('DynamicQuantizeMatMul', MS, inputs, [op('Y', 'float32', [2, 3, N])], []),
        feeds,
        outputs: ['Y'],
        tolerance: 1e-4,
      });
    }, 60_000);
});
