/**
 * com.microsoft GatherBlockQuantized: Gather on a blockwise-quantized tensor, dequantized on the way
 * out. data is uint8: with bits 4 two values are packed per byte (low nibble first) along the last
 * axis; as in onnxruntime, uint8 data is gathered along axis 0 and quantized along the last; scales hold one value per block of block_size along
 * quantize_axis; zero points (packed like data) default to 2^(bits-1).
 */
import { type OpDefinitionV1, type Shape, InferenceError, isUnknownRank } from '@tsge/metadef';
import { inputInfo, normalizeAxisForInfer } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

export const gatherBlockQuantizedOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'GatherBlockQuantized',
    domain: 'com.microsoft',
    sinceVersion: 1,
    inputs: [
      param.required('data', 'T1'),
      param.required('indices', 'Tind'),
      param.required('scales', 'T2'),
      param.optional('zero_points', 'T1'),
    ],
    outputs: [param.required('output', 'T2')],
    attributes: [
      { name: 'gather_axis', kind: 'int', default: { kind: 'int', value: 0 } },
      { name: 'quantize_axis', kind: 'int', default: { kind: 'int', value: 1 } },
      { name: 'block_size', kind: 'int', default: { kind: 'int', value: 128 } },
      { name: 'bits', kind: 'int', default: { kind: 'int', value: 4 } },
    ],
    typeConstraints: [
      { name: 'T1', allowed: ['uint8'] },
      { name: 'T2', allowed: ['float32', 'float16', 'bfloat16'] },
      { name: 'Tind', allowed: ['int32', 'int64'] },
    ],
    infer(ctx) {
      const data = inputInfo(ctx, 0);
      const indices = inputInfo(ctx, 1);
      const scales = inputInfo(ctx, 2);
      const name = `GatherBlockQuantized ${ctx.nodeName}`;
      const bits = ctx.attrs.int('bits', 4);
      const blockSize = ctx.attrs.int('block_size', 128);
      if (bits !== 4 && bits !== 8) throw new InferenceError(`${name}: bits must be 4 or 8, got ${bits}`);
      if (blockSize < 16 || (blockSize & (blockSize - 1)) !== 0)
        throw new InferenceError(`${name}: block_size must be a power of two >= 16, got ${blockSize}`);
      if (isUnknownRank(data.shape) || isUnknownRank(indices.shape)) {
        ctx.setOutput(0, { dtype: scales.dtype, shape: [-2] });
        return;
      }
      const rank = data.shape.length;
      const gatherAxis = normalizeAxisForInfer(ctx, ctx.attrs.int('gather_axis', 0), rank);
      const quantizeAxis = normalizeAxisForInfer(ctx, ctx.attrs.int('quantize_axis', 1), rank);
      // onnxruntime's layout for uint8 data (MatMulNBits' convention): rows gathered, blocks along the last axis
      if (gatherAxis !== 0 || quantizeAxis !== rank - 1)
        throw new InferenceError(`${name}: uint8 data needs gather_axis 0 and quantize_axis ${rank - 1} (the last axis)`);
      const logical: Shape = data.shape.map((d, i) =>
        i === rank - 1 && bits === 4 && typeof d === 'number' && d >= 0 ? d * 2 : (d as Shape[number]),
      );
      const shape: Shape = [...logical.slice(0, gatherAxis), ...indices.shape, ...logical.slice(gatherAxis + 1)];
      ctx.setOutput(0, { dtype: scales.dtype, shape });
    },
  }),
];
