// Transpose: permutes axes with one odometer pass over the output.
import { type Dim, InferenceError, isUnknownRank } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { whereOf, MOVABLE_TYPES } from '../common/tensor-infer.js';
import { defineOp, param } from '../define.js';

/** The permutation: the attribute, or reversed axes by default; validated. */
export function permutation(attrPerm: readonly number[] | undefined, rank: number, where: string): number[] {
  const perm = attrPerm ? attrPerm.map((p) => (p < 0 ? p + rank : p)) : Array.from({ length: rank }, (_, i) => rank - 1 - i);
  const seen = new Set(perm);
  if (perm.length !== rank || seen.size !== rank || perm.some((p) => p < 0 || p >= rank))
    throw new InferenceError(`${where}: perm [${attrPerm?.join(',')}] is not a permutation of ${rank} axes`);
  return perm;
}

export const transposeOp = defineOp({
  type: 'Transpose',
  sinceVersion: 25,
  inputs: [param.required('data', 'T')],
  outputs: [param.required('transposed', 'T')],
  attributes: [{ name: 'perm', kind: 'ints' }],
  typeConstraints: [{ name: 'T', allowed: MOVABLE_TYPES }],
  infer(ctx) {
    const x = requireInput(ctx, 0);
    const attrPerm = ctx.attrs.has('perm') ? ctx.attrs.ints('perm') : undefined;
    if (isUnknownRank(x.shape)) {
      ctx.setOutput(0, { dtype: x.dtype, shape: attrPerm ? attrPerm.map((): Dim => -1) : [-2] });
      return;
    }
    const perm = permutation(attrPerm, x.shape.length, whereOf(ctx));
    ctx.setOutput(0, { dtype: x.dtype, shape: perm.map((p) => x.shape[p] as Dim) });
  },
});

export const transposeOps = [transposeOp];
