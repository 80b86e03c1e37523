/**
 * com.microsoft MatMulNBits: Y = A · dequantize(B)ᵀ (+ bias) where B is [N, K] quantized along K in
 * blocks of block_size, packed low bits first into [N, k_blocks, block_size * bits / 8] bytes, with
 * one scale per (n, block) and optional zero points (packed bytes or float values; 2^(bits-1) when
 * omitted). accuracy_level is the minimum precision onnxruntime may compute A in; tsge computes in
 * float32/float64, which meets every level.
 */
import { type OpDefinitionV1, type Shape, InferenceError, isUnknownRank } from '@tsge/metadef';
import { inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

export const matMulNBitsOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'MatMulNBits',
    domain: 'com.microsoft',
    sinceVersion: 1,
    inputs: [
      param.required('A', 'T1'),
      param.required('B', 'T2'),
      param.required('scales', 'T1'),
      param.optional('zero_points', 'T3'),
      param.optional('g_idx', 'T4'),
      param.optional('bias', 'T1'),
    ],
    outputs: [param.required('Y', 'T1')],
    attributes: [
      { name: 'K', kind: 'int', required: true },
      { name: 'N', kind: 'int', required: true },
      { name: 'bits', kind: 'int', default: { kind: 'int', value: 4 } },
      { name: 'block_size', kind: 'int', required: true },
      { name: 'accuracy_level', kind: 'int', default: { kind: 'int', value: 0 } },
    ],
    typeConstraints: [
      { name: 'T1', allowed: ['float32', 'float16', 'bfloat16'] },
      { name: 'T2', allowed: ['uint8', 'int32'] },
      { name: 'T3', allowed: ['uint8', 'int32', 'float16', 'float32', 'bfloat16'] },
      { name: 'T4', allowed: ['int32'] },
    ],
    infer(ctx) {
      const a = inputInfo(ctx, 0);
      const name = `MatMulNBits ${ctx.nodeName}`;
      const k = ctx.attrs.int('K', 0);
      const n = ctx.attrs.int('N', 0);
      const bits = ctx.attrs.int('bits', 4);
      const blockSize = ctx.attrs.int('block_size', 0);
      if (k <= 0 || n <= 0) throw new InferenceError(`${name}: K (${k}) and N (${n}) must be positive`);
      if (bits !== 2 && bits !== 4 && bits !== 8) throw new InferenceError(`${name}: bits must be 2, 4 or 8, got ${bits}`);
      if (blockSize < 16 || (blockSize & (blockSize - 1)) !== 0)
        throw new InferenceError(`${name}: block_size must be a power of two >= 16, got ${blockSize}`);
      const level = ctx.attrs.int('accuracy_level', 0);
      if (level < 0 || level > 4) throw new InferenceError(`${name}: accuracy_level must be 0..4, got ${level}`);
      // onnxruntime marks g_idx deprecated and its CPU kernel reads it by the element's position
      // modulo 8, so there is no reference to match
      if (ctx.input(4)) throw new InferenceError(`${name}: g_idx (act-order group index) is not supported`);
      if (ctx.input(3)?.dtype === 'int32') throw new InferenceError(`${name}: int32 zero_points are not supported`);
      if (ctx.input(1)?.dtype === 'int32') throw new InferenceError(`${name}: B must be uint8 (packed bytes)`);
      if (isUnknownRank(a.shape)) {
        ctx.setOutput(0, { dtype: a.dtype, shape: a.shape });
        return;
      }
      if (a.shape.length < 1) throw new InferenceError(`${name}: A must have rank >= 1`);
      const last = a.shape[a.shape.length - 1];
      if (typeof last === 'number' && last >= 0 && last !== k)
        throw new InferenceError(`${name}: A's last dim ${last} differs from K ${k}`);
      const b = ctx.input(1);
      const blocks = Math.ceil(k / blockSize);
      const want = [n, blocks, (blockSize * bits) / 8];
      if (b && !isUnknownRank(b.shape) && b.shape.every((d) => typeof d === 'number' && d >= 0) && b.shape.join() !== want.join())
        throw new InferenceError(`${name}: B must be [${want}], got [${b.shape}]`);
      const y: Shape = [...a.shape.slice(0, -1), n];
      ctx.setOutput(0, { dtype: a.dtype, shape: y });
    },
  }),
];
