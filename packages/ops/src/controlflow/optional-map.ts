// Optional, OptionalHasElement, OptionalGetElement and SequenceMap.
import type { HostTensor, RuntimeValue, SequenceValue, ValueInfo } from '@tsge/metadef';
import { ALL_TENSOR_TYPES, isHostTensor, isOptionalValue, isSequenceValue } from '@tsge/metadef';
import { formalInputCount, kernelError } from '../common/tensor-infer.js';
import { defineKernel, defineOp, param } from '../define.js';
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

export const optionalKernel = defineKernel({
  opType: 'Optional',
  compute(ctx) {
    const v = ctx.input(0);
    if (isOptionalValue(v)) throw kernelError(ctx, 'an optional cannot hold an optional');
    ctx.setOutput(0, { kind: 'optional', value: v });
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

export const optionalHasElementKernel = defineKernel({
  opType: 'OptionalHasElement',
  compute(ctx) {
    const v = ctx.input(0);
    const has = v !== undefined && (!isOptionalValue(v) || v.value !== undefined);
    const y = ctx.output(0, [], 'bool');
    (y.data as Uint8Array)[0] = has ? 1 : 0;
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

export const optionalGetElementKernel = defineKernel({
  opType: 'OptionalGetElement',
  compute(ctx) {
    const v = ctx.input(0);
    if (v === undefined) throw kernelError(ctx, 'input is missing');
    if (!isOptionalValue(v)) {
      ctx.setOutput(0, v);
      return;
    }
    if (v.value === undefined) throw kernelError(ctx, 'the optional is empty');
    ctx.setOutput(0, v.value);
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

export const sequenceMapKernel = defineKernel({
  opType: 'SequenceMap',
  compute(ctx) {
    const first = ctx.input(0);
    if (!isSequenceValue(first)) throw kernelError(ctx, 'input 0 must be a sequence');
    const length = first.items.length;
    const extra: RuntimeValue[] = [];
    for (let i = 1; i < ctx.inputCount; i++) {
      const v = ctx.input(i);
      if (v === undefined) throw kernelError(ctx, `input ${i} is missing`);
      if (isSequenceValue(v) && v.items.length !== length)
        throw kernelError(ctx, `sequence input ${i} has ${v.items.length} items, expected ${length}`);
      extra.push(v);
    }
    const outputs: HostTensor[][] = Array.from({ length: ctx.outputCount }, () => []);
    for (let k = 0; k < length; k++) {
      const inputs: RuntimeValue[] = [
        first.items[k] as HostTensor,
        ...extra.map((v) => (isSequenceValue(v) ? (v.items[k] as HostTensor) : v)),
      ];
      const result = ctx.runSubgraph('body', inputs);
      for (let i = 0; i < ctx.outputCount; i++) {
        const r = result[i];
        if (!isHostTensor(r)) throw kernelError(ctx, `body output ${i} must be a tensor`);
        (outputs[i] as HostTensor[]).push(r);
      }
    }
    outputs.forEach((items, i) => {
      const seq: SequenceValue = { kind: 'sequence', elementType: items[0]?.type ?? first.elementType, items };
      ctx.setOutput(i, seq);
    });
  },
});

export const optionalMapOps = [optionalOp, optionalHasElementOp, optionalGetElementOp, sequenceMapOp];
export const optionalMapKernels = [optionalKernel, optionalHasElementKernel, optionalGetElementKernel, sequenceMapKernel];
