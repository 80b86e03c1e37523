// Optional, OptionalHasElement, OptionalGetElement and SequenceMap.
import { type ValueInfo, ALL_TENSOR_TYPES } from '@tsge/metadef';
import { formalInputCount } from '../common/tensor-infer.js';
import { defineOp, param } from '../define.js';
import { sequenceInfo } from './sequence.js';

const V = { name: 'V', allowed: ALL_TENSOR_TYPES, allowedKinds: ['seq(*)'] };
const O = { name: 'O', allowed: ALL_TENSOR_TYPES, allowedKinds: ['optional(*)', 'seq(*)'] };

export const optionalOp = defineOp({
  type: 'Optional',
  sinceVersion: 15,
  inputs: [param.optional('input', 'V')],
  outputs: [param.required('output', 'O')],
  attributes: [{ name: 'type', kind: 'tensor_desc' }],
  typeConstraints: [V, O],
  infer(ctx) {
    const v = ctx.input(0);
    if (v) {
      ctx.setOutput(0, { kind: 'optional', dtype: v.dtype, shape: v.shape, element: v });
      return;
    }
    // an empty optional takes its element type from the `type` attribute
    const type = ctx.attrs.get('type');
    if (type?.kind === 'tensor_desc') {
      const d = type.value;
      const element: ValueInfo =
        d.valueKind === 'sequence'
          ? { kind: 'sequence', dtype: d.dtype, shape: [-2], element: { dtype: d.dtype, shape: d.shape } }
          : { dtype: d.dtype, shape: d.shape };
      ctx.setOutput(0, { kind: 'optional', dtype: d.dtype, shape: d.shape, element });
    }
  },
});

export const optionalHasElementOp = defineOp({
  type: 'OptionalHasElement',
  sinceVersion: 18,
  inputs: [param.optional('input', 'O')],
  outputs: [param.required('output', 'bool')],
  typeConstraints: [O],
  infer(ctx) {
    ctx.setOutput(0, { dtype: 'bool', shape: [] });
  },
});

export const optionalGetElementOp = defineOp({
  type: 'OptionalGetElement',
  sinceVersion: 18,
  inputs: [param.required('input', 'O')],
  outputs: [param.required('output', 'V')],
  typeConstraints: [O, V],
  infer(ctx) {
    const v = ctx.input(0);
    if (!v) return;
    ctx.setOutput(0, v.kind === 'optional' ? (v.element ?? { dtype: v.dtype, shape: [-2] }) : v);
  },
});

export const sequenceMapOp = defineOp({
  type: 'SequenceMap',
  sinceVersion: 17,
  inputs: [param.required('input_sequence', 'S'), param.variadic('additional_inputs', 'V', 0, false)],
  outputs: [param.variadic('out_sequence', 'S', 1, false)],
  attributes: [{ name: 'body', kind: 'graph', required: true }],
  typeConstraints: [{ name: 'S', allowed: ALL_TENSOR_TYPES, allowedKinds: ['seq(*)'] }, V],
  infer(ctx) {
    if (!ctx.inferSubgraph) return;
    const inputs: (ValueInfo | undefined)[] = [];
    const count = formalInputCount(ctx);
    for (let i = 0; i < count; i++) {
      const v = ctx.input(i);
      inputs.push(v?.kind === 'sequence' ? (v.element ?? { dtype: v.dtype, shape: [-2] }) : v);
    }
    ctx.inferSubgraph('body', inputs).forEach((out, i) => {
      if (out && i < ctx.outputCount) ctx.setOutput(i, sequenceInfo(out));
    });
  },
});

export const optionalMapOps = [optionalOp, optionalHasElementOp, optionalGetElementOp, sequenceMapOp];
