/** Helpers for the math group's tests: run one reference kernel or one inference on host values. */
import {
  type AttrMap,
  type AttrValue,
  type DataType,
  type HostTensor,
  type RuntimeValue,
  type Shape,
  type TensorStorage,
  type ValueInfo,
  createAttrReader,
  createTensor,
  numberToFloat16,
} from '@tsge/metadef';
import { runKernelOnHost } from '../host/run-on-host.js';
import { mathKernels } from './index.js';
import { mathOps } from '@tsge/ops/kernel-support';

export function tensor(type: DataType, dims: readonly number[], values: readonly (number | bigint | string | boolean)[]): HostTensor {
  const t = createTensor(type, dims);
  const data = t.data as unknown as { [i: number]: unknown };
  values.forEach((v, i) => {
    if (type === 'int64' || type === 'uint64') data[i] = BigInt(v as number);
    else if (type === 'float16') data[i] = numberToFloat16(v as number);
    else if (type === 'bool') data[i] = v ? 1 : 0;
    else data[i] = v;
  });
  return t;
}

export function run(
  opType: string,
  inputs: readonly (RuntimeValue | undefined)[],
  attrs: Readonly<Record<string, AttrValue>> = {},
  outputCount = 1,
): HostTensor[] {
  const kernel = mathKernels.find((k) => k.opType === opType);
  if (!kernel) throw new Error(`no kernel ${opType}`);
  const map: AttrMap = new Map(Object.entries(attrs));
  return runKernelOnHost(kernel, inputs, { attrs: map, outputCount }) as HostTensor[];
}

/** Runs a kernel as a node of an older opset would. */
export function runAt(
  opsetVersion: number,
  opType: string,
  inputs: readonly (RuntimeValue | undefined)[],
  attrs: Readonly<Record<string, AttrValue>> = {},
): HostTensor[] {
  const kernel = mathKernels.find((k) => k.opType === opType);
  if (!kernel) throw new Error(`no kernel ${opType}`);
  return runKernelOnHost(kernel, inputs, { attrs: new Map(Object.entries(attrs)), outputCount: 1, opsetVersion }) as HostTensor[];
}

/** Plain numbers of a tensor's storage (bigints converted). */
export function values(t: HostTensor): (number | string)[] {
  return Array.from(t.data as TensorStorage as ArrayLike<number | bigint | string>, (v) => (typeof v === 'bigint' ? Number(v) : v));
}

export function infer(
  opType: string,
  inputs: readonly (ValueInfo | undefined)[],
  attrs: Readonly<Record<string, AttrValue>> = {},
  options: { outputCount?: number; inputValues?: readonly (HostTensor | undefined)[] } = {},
): (ValueInfo | undefined)[] {
  const def = mathOps.find((d) => d.type === opType);
  if (!def) throw new Error(`no op ${opType}`);
  const outputs: (ValueInfo | undefined)[] = new Array(options.outputCount ?? 1).fill(undefined);
  let symbol = 0;
  def.infer({
    opType,
    nodeName: 'n',
    opsetVersion: def.sinceVersion,
    inputCount: inputs.length,
    outputCount: outputs.length,
    attrs: createAttrReader(new Map(Object.entries(attrs))),
    input: (i) => inputs[i],
    inputValue: (i) => options.inputValues?.[i],
    setOutput: (i, info) => {
      outputs[i] = info;
    },
    newSymbol: (hint = 's') => `${hint}_${++symbol}`,
  });
  return outputs;
}

export function info(dtype: DataType, shape: Shape): ValueInfo {
  return { dtype, shape };
}
