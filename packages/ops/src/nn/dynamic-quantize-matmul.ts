/**
 * com.microsoft DynamicQuantizeMatMul: A is quantized to uint8 at run time as DynamicQuantizeLinear
 * does (range including 0, scale = range / 255, zero point rounded half to even), multiplied by the
 * int8/uint8 B in integers, and rescaled by a_scale · b_scale (+ bias). B is 2-D [K, N]; b_scale and
 * b_zero_point are scalars or per column [N].
 */
import { type OpDefinitionV1, type Shape, InferenceError, isUnknownRank } from '@tsge/metadef';
import { inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';

export const dynamicQuantizeMatMulOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'DynamicQuantizeMatMul',
    domain: 'com.microsoft',
    sinceVersion: 1,
    inputs: [
      param.required('A', 'T1'),
      param.required('B', 'T2'),
      param.required('b_scale', 'T1'),
      param.optional('b_zero_point', 'T2'),
      param.optional('bias', 'T1'),
    ],
    outputs: [param.required('Y', 'T1')],
    typeConstraints: [
      { name: 'T1', allowed: ['float32'] },
      { name: 'T2', allowed: ['int8', 'uint8'] },
    ],
    infer(ctx) {
      const a = inputInfo(ctx, 0);
      const b = inputInfo(ctx, 1);
      const name = `DynamicQuantizeMatMul ${ctx.nodeName}`;
      if (isUnknownRank(a.shape) || isUnknownRank(b.shape)) {
        ctx.setOutput(0, { dtype: 'float32', shape: [-2] });
        return;
      }
      if (b.shape.length !== 2) throw new InferenceError(`${name}: B must be 2-D [K, N], got rank ${b.shape.length}`);
      if (a.shape.length < 1) throw new InferenceError(`${name}: A must have rank >= 1`);
      const k = a.shape[a.shape.length - 1];
      const kb = b.shape[0];
      if (typeof k === 'number' && k >= 0 && typeof kb === 'number' && kb >= 0 && k !== kb)
        throw new InferenceError(`${name}: A's last dim ${k} differs from B's first dim ${kb}`);
      const shape: Shape = a.shape.length === 1 ? [b.shape[1] as Shape[number]] : [...a.shape.slice(0, -1), b.shape[1] as Shape[number]];
      ctx.setOutput(0, { dtype: 'float32', shape });
    },
  }),
];
