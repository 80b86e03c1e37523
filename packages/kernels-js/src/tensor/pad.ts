// Pad: constant, reflect, edge and wrap modes; negative pads crop; optional axes input.
import { OUTSIDE, copyByAxisTables, rawElement, rowMajorStrides } from '../common/tensor-copy.js';
import { intList, kernelError, requireTensor } from '../common/tensor-infer.js';
import { whereOf, fullPads, reflectPadsProblem } from '@tsge/ops/kernel-support';
import { defineKernel } from '../define.js';

type PadMode = 'constant' | 'reflect' | 'edge' | 'wrap';

/** Input coordinate for output coordinate `o` along an axis, or -1 for the constant area. */
function sourceCoord(o: number, begin: number, size: number, mode: PadMode): number {
  let i = o - begin;
  if (i >= 0 && i < size) return i;
  if (mode === 'constant' || size === 0) return -1;
  if (mode === 'edge') return i < 0 ? 0 : size - 1;
  if (mode === 'wrap') return ((i % size) + size) % size;
  if (size === 1) return 0;
  const period = 2 * (size - 1);
  i = ((i % period) + period) % period;
  return i < size ? i : period - i;
}

export const padKernel = defineKernel({
  opType: 'Pad',
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    const mode = ctx.attrs.string('mode', 'constant') as PadMode;
    const rank = x.dims.length;
    const axesT = ctx.tensor(3);
    let begin: number[];
    let end: number[];
    try {
      [begin, end] = fullPads(intList(requireTensor(ctx, 1)), axesT ? intList(axesT) : undefined, rank, whereOf(ctx));
    } catch (e) {
      throw kernelError(ctx, (e as Error).message);
    }
    const outDims = x.dims.map((d, i) => d + (begin[i] as number) + (end[i] as number));
    if (outDims.some((d) => d < 0)) throw kernelError(ctx, 'pads crop more than the input has');
    const reflect = mode === 'reflect' ? reflectPadsProblem(x.dims, begin, end) : undefined;
    if (reflect) throw kernelError(ctx, reflect);
    const total = outDims.reduce((a, b) => a * b, 1);
    if (mode !== 'constant' && total > 0 && x.dims.some((d) => d === 0)) throw kernelError(ctx, `mode ${mode} cannot pad an empty axis`);
    const strides = rowMajorStrides(x.dims);
    const tables = outDims.map((d, axis) => {
      const table = new Float64Array(d);
      for (let o = 0; o < d; o++) {
        const i = sourceCoord(o, begin[axis] as number, x.dims[axis] as number, mode);
        table[o] = i < 0 ? OUTSIDE : i * (strides[axis] as number);
      }
      return table;
    });
    const valueT = ctx.tensor(2);
    const fill =
      valueT && valueT.data.length > 0
        ? rawElement(valueT, 0)
        : x.type === 'string'
          ? ''
          : x.type === 'int64' || x.type === 'uint64'
            ? 0n
            : 0;
    const y = ctx.output(0, outDims, x.type);
    copyByAxisTables(x.data, y.data, outDims, tables, fill);
  },
});
export const padKernels = [padKernel];
