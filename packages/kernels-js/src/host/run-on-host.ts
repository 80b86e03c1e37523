import {
  type AttrMap,
  type DataType,
  type HostTensor,
  type KernelContextV1,
  type KernelV1,
  type RuntimeValue,
  TsgeError,
  createAttrReader,
  createTensor,
  isHostTensor,
} from '@tsge/metadef';

export interface HostRunOptions {
  readonly opType?: string;
  readonly nodeName?: string;
  readonly attrs?: AttrMap;
  readonly outputCount: number;
  readonly opsetVersion?: number;
  readonly runSubgraph?: KernelContextV1['runSubgraph'];
}

/**
 * Runs a kernel on plain host memory: each requested output gets a fresh array. Used by constant
 * folding in the compiler, by tests, and by simple interpreters.
 */
export function runKernelOnHost(
  kernel: KernelV1,
  inputs: readonly (RuntimeValue | undefined)[],
  options: HostRunOptions,
): (RuntimeValue | undefined)[] {
  const outputs: (RuntimeValue | undefined)[] = new Array(options.outputCount).fill(undefined);
  const nodeName = options.nodeName ?? kernel.opType;
  const ctx: KernelContextV1 = {
    nodeName,
    opType: options.opType ?? kernel.opType,
    attrs: createAttrReader(options.attrs ?? new Map()),
    inputCount: inputs.length,
    outputCount: options.outputCount,
    opsetVersion: options.opsetVersion ?? 0,
    input: (i) => inputs[i],
    tensor: (i) => {
      const v = inputs[i];
      if (v === undefined) return undefined;
      if (!isHostTensor(v)) throw TsgeError.of('TSGE-E4003', { reason: `input ${i} of ${nodeName} is a ${v.kind}, expected a tensor` });
      return v;
    },
    output: (i: number, dims: readonly number[], dtype: DataType): HostTensor => {
      const t = createTensor(dtype, dims);
      outputs[i] = t;
      return t;
    },
    setOutput: (i, value) => {
      outputs[i] = value;
    },
    runSubgraph:
      options.runSubgraph ??
      (() => {
        throw TsgeError.of('TSGE-E4003', { reason: `${nodeName}: subgraphs cannot run here` });
      }),
  };
  kernel.compute(ctx);
  return outputs;
}
