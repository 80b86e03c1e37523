import { type Dim, type OpDefinitionV1, InferenceError, TSGE_DOMAIN, isUnknownRank } from '@tsge/metadef';
import { inputInfo } from '../common/nn-float-io.js';
import { defineOp, param } from '../define.js';
import { PACKED_WEIGHT } from './packed-int-weights.js';
import { packedPanelsMismatch, packedPanelsShape } from './packed-int-panels.js';

/**
 * tsge::PackedMatMulInteger: MatMulInteger or QLinearMatMul with a constant B[K, N] that the compiler
 * stored as int16 B − b_zero_point in the integer GEMM's panels (`packed_weight`, packed-int-panels.ts),
 * so no run widens, centres or packs B. Y[..., M, N] = (A − a_zero_point)[..., M, K] · B with A's zero
 * point one value or one per row. Without y_zero_point Y is that int32 sum (MatMulInteger); with it
 * (and the three scales) Y is QLinearMatMul's requantization of the sum:
 *   y = saturate(roundHalfEven(f32(f32(acc) · f32(f32(a_scale · b_scale) / y_scale))) + y_zero_point)
 * with a_scale one value or one per row, b_scale one or one per column, y_scale one value.
 */
export const PACKED_MATMUL_INTEGER = 'PackedMatMulInteger';

const known = (d: Dim | undefined): d is number => typeof d === 'number' && d >= 0;

/** The op definition of tsge::PackedMatMulInteger. */
export const packedMatMulIntegerDefinition: OpDefinitionV1 = defineOp({
  type: PACKED_MATMUL_INTEGER,
  domain: TSGE_DOMAIN,
  sinceVersion: 1,
  doc: 'MatMulInteger / QLinearMatMul with a constant B stored as int16 B − b_zero_point in the integer GEMM panels.',
  inputs: [
    param.required('A', 'T1'),
    param.required('B_packed', 'int16'),
    param.optional('a_zero_point', 'T1'),
    param.optional('a_scale', 'float32'),
    param.optional('b_scale', 'float32'),
    param.optional('y_scale', 'float32'),
    param.optional('y_zero_point', 'T3'),
  ],
  outputs: [param.required('Y', 'T4')],
  attributes: [{ name: PACKED_WEIGHT, kind: 'ints', required: true }],
  typeConstraints: [
    { name: 'T1', allowed: ['int8', 'uint8'] },
    { name: 'T3', allowed: ['int8', 'uint8'] },
    { name: 'T4', allowed: ['int32', 'int8', 'uint8'] },
  ],
  infer: (ctx) => {
    const bad = (what: string) => new InferenceError(`${PACKED_MATMUL_INTEGER} ${ctx.nodeName}: ${what}`);
    const shape = packedPanelsShape(ctx.attrs.ints(PACKED_WEIGHT));
    if (typeof shape === 'string') throw bad(`${PACKED_WEIGHT} ${shape}`);
    const a = inputInfo(ctx, 0);
    const b = inputInfo(ctx, 1);
    if (!isUnknownRank(b.shape) && b.shape.every(known)) {
      const why = packedPanelsMismatch(shape, b.shape as number[]);
      if (why) throw bad(why);
    }
    const yz = ctx.input(6);
    const scales = [3, 4, 5].filter((i) => ctx.input(i)).length;
    if (yz ? scales !== 3 : scales !== 0) throw bad('the three scales come with y_zero_point, and only with it');
    const dtype = yz ? yz.dtype : 'int32';
    if (isUnknownRank(a.shape)) return ctx.setOutput(0, { dtype, shape: a.shape });
    if (a.shape.length < 2) throw bad(`A must have rank 2 or more, got [${a.shape.join(', ')}]`);
    const k = a.shape[a.shape.length - 1];
    if (known(k) && k !== shape.k) throw bad(`A's last dim ${k} differs from the packed B's K ${shape.k}`);
    ctx.setOutput(0, { dtype, shape: [...a.shape.slice(0, -1), shape.n] });
  },
});
