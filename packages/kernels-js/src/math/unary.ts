/** Elementwise unary math: Abs, Neg, Sign, Reciprocal, Floor, Ceil, Round, Sqrt, Exp, Log, Erf, trigonometry, IsNaN, IsInf. */
import { type KernelContextV1, type KernelV1, isBigIntType } from '@tsge/metadef';
import { numberOutput, numbersOf } from '../common/math-values.js';
import { requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';
import { FLOATS, type UnaryDef, UNARY } from '@tsge/ops/kernel-support';

function computeUnary(ctx: KernelContextV1, def: UnaryDef, loop: UnaryDef['loop']): void {
  const x = requireTensor(ctx, 0);
  const dtype = def.out ?? x.type;
  if (def.big && isBigIntType(x.type)) {
    const src = x.data as BigInt64Array;
    const dst = ctx.output(0, x.dims, dtype).data as BigInt64Array;
    for (let i = 0; i < src.length; i++) dst[i] = def.big(src[i]!);
    return;
  }
  const src = numbersOf(x);
  const out = numberOutput(ctx, 0, x.dims, dtype);
  loop(src, out.values);
  out.commit();
}

const isInfDef: UnaryDef = { type: 'IsInf', sinceVersion: 20, types: FLOATS, loop: () => {}, out: 'bool' };

export const unaryKernels: readonly KernelV1[] = [
  ...UNARY.map((def) =>
    defineKernel({ opType: def.type, inPlace: def.out ? [] : [[0, 0]], compute: (ctx) => computeUnary(ctx, def, def.loop) }),
  ),
  defineKernel({
    opType: 'IsInf',
    compute: (ctx) => {
      const negative = ctx.attrs.int('detect_negative', 1) !== 0;
      const positive = ctx.attrs.int('detect_positive', 1) !== 0;
      computeUnary(ctx, isInfDef, (x, y) => {
        for (let i = 0; i < x.length; i++) {
          const v = x[i]!;
          y[i] = (positive && v === Number.POSITIVE_INFINITY) || (negative && v === Number.NEGATIVE_INFINITY) ? 1 : 0;
        }
      });
    },
  }),
];
