// Identity (tensors, sequences, optionals), Constant (every value_* attribute) and ConstantOfShape.
import { type AttrReader, type Dim, type HostTensor, InferenceError, createTensor } from '@tsge/metadef';
import { requireInput } from '../common/infer-helpers.js';
import { knownInts, whereOf, MOVABLE_TYPES } from '../common/tensor-infer.js';
import { defineOp, param } from '../define.js';

export const identityOp = defineOp({
  type: 'Identity',
  sinceVersion: 25,
  inputs: [param.required('input', 'V')],
  outputs: [param.required('output', 'V')],
  typeConstraints: [{ name: 'V', allowed: MOVABLE_TYPES, allowedKinds: ['seq(*)', 'optional(*)'] }],
  infer(ctx) {
    ctx.setOutput(0, requireInput(ctx, 0));
  },
});

/** The tensor a Constant node's attributes describe. */
export function constantValue(attrs: AttrReader, where: string): HostTensor {
  // parsers densify sparse_value into a tensor attribute
  const t = attrs.tensor('value') ?? attrs.tensor('sparse_value');
  if (t) return t;
  if (attrs.has('value_float')) return createTensor('float32', [], Float32Array.of(attrs.float('value_float')));
  if (attrs.has('value_floats'))
    return createTensor('float32', [attrs.floats('value_floats').length], Float32Array.from(attrs.floats('value_floats')));
  if (attrs.has('value_int')) return createTensor('int64', [], BigInt64Array.of(BigInt(attrs.int('value_int'))));
  if (attrs.has('value_ints')) {
    const v = attrs.ints('value_ints');
    return createTensor(
      'int64',
      [v.length],
      BigInt64Array.from(v, (x) => BigInt(x)),
    );
  }
  if (attrs.has('value_string')) return createTensor('string', [], [attrs.string('value_string')]);
  if (attrs.has('value_strings'))
    return createTensor('string', [attrs.strings('value_strings').length], [...attrs.strings('value_strings')]);
  throw new InferenceError(`${where}: Constant needs one of value, value_float(s), value_int(s), value_string(s)`);
}

export const constantOp = defineOp({
  type: 'Constant',
  sinceVersion: 25,
  outputs: [param.required('output', 'T')],
  attributes: [
    { name: 'value', kind: 'tensor' },
    { name: 'sparse_value', kind: 'tensor' },
    { name: 'value_float', kind: 'float' },
    { name: 'value_floats', kind: 'floats' },
    { name: 'value_int', kind: 'int' },
    { name: 'value_ints', kind: 'ints' },
    { name: 'value_string', kind: 'string' },
    { name: 'value_strings', kind: 'strings' },
  ],
  typeConstraints: [{ name: 'T', allowed: MOVABLE_TYPES }],
  infer(ctx) {
    const t = constantValue(ctx.attrs, whereOf(ctx));
    ctx.setOutput(0, { dtype: t.type, shape: t.dims });
  },
});

export const constantOfShapeOp = defineOp({
  type: 'ConstantOfShape',
  sinceVersion: 25,
  inputs: [param.required('input', 'int64')],
  outputs: [param.required('output', 'T2')],
  attributes: [{ name: 'value', kind: 'tensor' }],
  typeConstraints: [{ name: 'T2', allowed: MOVABLE_TYPES }],
  infer(ctx) {
    const dtype = ctx.attrs.tensor('value')?.type ?? 'float32';
    const dims = knownInts(ctx, 0);
    if (dims) {
      if (dims.some((d) => d < 0)) throw new InferenceError(`${whereOf(ctx)}: negative dim in [${dims.join(',')}]`);
      ctx.setOutput(0, { dtype, shape: dims });
      return;
    }
    const n = requireInput(ctx, 0).shape[0];
    ctx.setOutput(0, { dtype, shape: typeof n === 'number' && n >= 0 ? new Array<Dim>(n).fill(-1) : [-2] });
  },
});

export const identityConstantOps = [identityOp, constantOp, constantOfShapeOp];
