import { TSGE_DOMAIN } from '@tsge/metadef';
import { FUSED_ELEMENTWISE } from '@tsge/ops/kernel-support';
import { defineKernel } from '../define.js';
import { elementwiseTask } from './epilogue.js';
import { checkOperands, interpretDescription } from './generated-kernel.js';

/** The reference kernel of `tsge::FusedElementwise`: the interpreter over the whole output. */
export const fusedElementwiseKernel = defineKernel({
  opType: FUSED_ELEMENTWISE,
  domain: TSGE_DOMAIN,
  dtypes: ['float32'],
  compute(ctx) {
    const { description: d, dims } = elementwiseTask(ctx);
    const inputs = Array.from({ length: ctx.inputCount }, (_, i) => ctx.tensor(i)?.data as Float32Array | undefined);
    const y = ctx.output(0, dims, 'float32').data as Float32Array;
    checkOperands(d, inputs, y, ctx.nodeName);
    const ins = inputs as Float32Array[];
    // the output may share bytes with an input the plan let it reuse: compute into a copy then
    const overlaps = ins.some(
      (x) => x.buffer === y.buffer && x.byteOffset < y.byteOffset + y.byteLength && y.byteOffset < x.byteOffset + x.byteLength,
    );
    const out = overlaps ? new Float32Array(y.length) : y;
    interpretDescription(d, ins, out);
    if (out !== y) y.set(out);
  },
});
