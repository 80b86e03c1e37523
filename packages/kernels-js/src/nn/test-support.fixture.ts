/** Test support for nn kernels: run a kernel by op type on host tensors. Not exported by the package. */
import {
  type AttrValue,
  type DataType,
  type HostTensor,
  type KernelV1,
  type OpDefinitionV1,
  type RuntimeValue,
  type ValueInfo,
  createAttrReader,
  createTensor,
} from '@tsge/metadef';
import { expect } from 'vitest';
import { runKernelOnHost } from '../host/run-on-host.js';

export function tensorOf(dtype: DataType, dims: readonly number[], values: ArrayLike<number | bigint>): HostTensor {
  const t = createTensor(dtype, dims);
  const data = t.data as unknown as { [i: number]: number | bigint };
  for (let i = 0; i < values.length; i++) data[i] = values[i] as number | bigint;
  return t;
}

export function f32(dims: readonly number[], values: ArrayLike<number>): HostTensor {
  return tensorOf('float32', dims, values);
}

export function runOp(
  kernels: readonly KernelV1[],
  opType: string,
  inputs: readonly (RuntimeValue | undefined)[],
  attrs: Record<string, AttrValue> = {},
  outputCount = 1,
  opsetVersion = 0,
): HostTensor[] {
  const kernel = kernels.find((k) => k.opType === opType);
  if (!kernel) throw new Error(`no kernel ${opType}`);
  return runKernelOnHost(kernel, inputs, { attrs: new Map(Object.entries(attrs)), outputCount, opsetVersion }) as HostTensor[];
}

export function values(t: HostTensor | undefined): number[] {
  if (!t) return [];
  return Array.from(t.data as ArrayLike<number | bigint>, (v) => Number(v));
}

/** Element-wise closeness with an absolute+relative tolerance. */
export function expectClose(actual: readonly number[], expected: readonly number[], tolerance = 1e-5): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < actual.length; i++) {
    const e = expected[i] as number;
    const a = actual[i] as number;
    if (Number.isNaN(e)) expect(Number.isNaN(a)).toBe(true);
    else if (Math.abs(a - e) > tolerance * (1 + Math.abs(e))) expect(a, `element ${i}`).toBe(e);
  }
}

/** Runs an op's inference on value infos (and optional constant input values); returns output infos. */
export function inferOp(
  ops: readonly OpDefinitionV1[],
  opType: string,
  inputs: readonly (ValueInfo | undefined)[],
  options: { attrs?: Record<string, AttrValue>; outputCount?: number; values?: readonly (HostTensor | undefined)[] } = {},
): (ValueInfo | undefined)[] {
  const def = ops.find((d) => d.type === opType);
  if (!def) throw new Error(`no op ${opType}`);
  const outputs: (ValueInfo | undefined)[] = new Array(options.outputCount ?? 1).fill(undefined);
  let symbols = 0;
  def.infer({
    opType,
    nodeName: 'n',
    opsetVersion: def.sinceVersion,
    inputCount: inputs.length,
    outputCount: outputs.length,
    attrs: createAttrReader(new Map(Object.entries(options.attrs ?? {}))),
    input: (i) => inputs[i],
    inputValue: (i) => options.values?.[i],
    setOutput: (i, info) => {
      outputs[i] = info;
    },
    newSymbol: (hint = 's') => `${hint}${++symbols}`,
  });
  return outputs;
}
