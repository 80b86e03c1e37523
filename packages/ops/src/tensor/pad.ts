// Pad: constant, reflect, edge and wrap modes; negative pads crop; optional axes input.
import type { Dim } from '@tsge/metadef';
import { InferenceError, isUnknownRank } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { OUTSIDE, copyByAxisTables, rawElement, rowMajorStrides } from '../common/tensor-copy.js';
import {
  intList,
  kernelError,
  knownInts,
  normalizeAxis,
  requireTensor,
  unknownDims,
  whereOf,
  MOVABLE_TYPES,
} from '../common/tensor-infer.js';
import { defineKernel, defineOp, param } from '../define.js';
import { reflectPadsProblem } from './pad-check.js';

type PadMode = 'constant' | 'reflect' | 'edge' | 'wrap';

/** Per-axis [begin, end] pads for the full rank, from pads (and axes) inputs. */
function fullPads(pads: readonly number[], axes: readonly number[] | undefined, rank: number, where: string): [number[], number[]] {
  const ax = (axes ?? Array.from({ length: rank }, (_, i) => i)).map((a) => normalizeAxis(a, rank, where));
  if (pads.length !== 2 * ax.length) throw new InferenceError(`${where}: pads has ${pads.length} entries for ${ax.length} axes`);
  const begin = new Array<number>(rank).fill(0);
  const end = new Array<number>(rank).fill(0);
  ax.forEach((a, i) => {
    begin[a] = pads[i] as number;
    end[a] = pads[i + ax.length] as number;
  });
  return [begin, end];
}

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

export const padOp = defineOp({
  type: 'Pad',
  sinceVersion: 25,
  inputs: [
    param.required('data', 'T'),
    param.required('pads', 'int64'),
    param.optional('constant_value', 'T'),
    param.optional('axes', 'Tind'),
  ],
  outputs: [param.required('output', 'T')],
  attributes: [{ name: 'mode', kind: 'string', default: { kind: 'string', value: 'constant' } }],
  typeConstraints: [
    { name: 'T', allowed: MOVABLE_TYPES },
    { name: 'Tind', allowed: ['int32', 'int64'] },
  ],
  infer(ctx) {
    const x = requireInput(ctx, 0);
    const mode = ctx.attrs.string('mode', 'constant');
    if (!['constant', 'reflect', 'edge', 'wrap'].includes(mode)) throw new InferenceError(`${whereOf(ctx)}: unknown mode '${mode}'`);
    if (isUnknownRank(x.shape)) {
      ctx.setOutput(0, { dtype: x.dtype, shape: [-2] });
      return;
    }
    const pads = knownInts(ctx, 1);
    const axes = ctx.input(3) ? knownInts(ctx, 3) : undefined;
    if (!pads || (ctx.input(3) && !axes)) {
      ctx.setOutput(0, { dtype: x.dtype, shape: unknownDims(x.shape.length) });
      return;
    }
    const [begin, end] = fullPads(pads, axes, x.shape.length, whereOf(ctx));
    const reflect = mode === 'reflect' ? reflectPadsProblem(x.shape, begin, end) : undefined;
    if (reflect) throw new InferenceError(`${whereOf(ctx)}: ${reflect}`);
    const shape = x.shape.map((d, i): Dim => (typeof d === 'number' && d >= 0 ? d + (begin[i] as number) + (end[i] as number) : -1));
    ctx.setOutput(0, { dtype: x.dtype, shape });
  },
});

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

export const padOps = [padOp];
export const padKernels = [padKernel];
