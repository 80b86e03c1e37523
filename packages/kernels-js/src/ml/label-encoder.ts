// LabelEncoder (ai.onnx.ml v4): maps each element through a key → value table, else a default.
import { fillSlots } from '../common/tensor-copy.js';
import { kernelError, requireTensor } from '../common/tensor-infer.js';
import { whereOf, ML_DOMAIN, type Table, labelTable, type Scalar, tensorScalars } from '@tsge/ops/kernel-support';
import { defineKernel } from '../define.js';

export const labelEncoderKernel = defineKernel({
  opType: 'LabelEncoder',
  domain: ML_DOMAIN,
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    let table: Table;
    try {
      table = labelTable(ctx.attrs, whereOf(ctx));
    } catch (e) {
      throw kernelError(ctx, (e as Error).message);
    }
    // float keys may be float32-rounded already; match float32 inputs on the rounded key
    const roundKey = x.type === 'float32' ? Math.fround : (v: number) => v;
    const map = new Map<Scalar, Scalar>();
    table.keys.forEach((k, i) => {
      map.set(typeof k === 'number' ? roundKey(k) : k, table.values[i] as Scalar);
    });
    const inputs = tensorScalars(x);
    const y = ctx.output(0, x.dims, table.valueType);
    const out = y.data as unknown as { [i: number]: unknown };
    const isBig = table.valueType === 'int64' || table.valueType === 'uint64';
    fillSlots(y.data, isBig ? 0n : table.valueType === 'string' ? '' : 0);
    for (let i = 0; i < inputs.length; i++) {
      const v = map.get(inputs[i] as Scalar) ?? table.fallback;
      if (isBig && (typeof v !== 'number' || !Number.isInteger(v))) throw kernelError(ctx, `value ${String(v)} is not an integer`);
      out[i] = isBig ? BigInt(v) : v;
    }
  },
});
export const labelEncoderKernels = [labelEncoderKernel];
