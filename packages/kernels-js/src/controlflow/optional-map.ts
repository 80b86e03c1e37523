// Optional, OptionalHasElement, OptionalGetElement and SequenceMap.
import { type HostTensor, type RuntimeValue, type SequenceValue, isHostTensor, isOptionalValue, isSequenceValue } from '@tsge/metadef';
import { kernelError } from '../common/tensor-infer.js';
import { defineKernel } from '../define.js';

export const optionalKernel = defineKernel({
  opType: 'Optional',
  compute(ctx) {
    const v = ctx.input(0);
    if (isOptionalValue(v)) throw kernelError(ctx, 'an optional cannot hold an optional');
    ctx.setOutput(0, { kind: 'optional', value: v });
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
export const optionalMapKernels = [optionalKernel, optionalHasElementKernel, optionalGetElementKernel, sequenceMapKernel];
