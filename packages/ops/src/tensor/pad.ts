// Pad: constant, reflect, edge and wrap modes; negative pads crop; optional axes input.
import { type Dim, InferenceError, isUnknownRank } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { knownInts, normalizeAxis, unknownDims, whereOf, MOVABLE_TYPES } from '../common/tensor-infer.js';
import { defineOp, param } from '../define.js';
import { reflectPadsProblem } from './pad-check.js';

/** Per-axis [begin, end] pads for the full rank, from pads (and axes) inputs. */
export function fullPads(pads: readonly number[], axes: readonly number[] | undefined, rank: number, where: string): [number[], number[]] {
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

export const padOps = [padOp];
