// Runs an op's inference on plain ValueInfos outside a graph (tests and quick checks).
import type { AttrMap, HostTensor, InferenceContextV1, OpDefinitionV1, ValueInfo } from '@tsge/metadef';
import { createAttrReader } from '@tsge/metadef';

export interface InferOnValuesOptions {
  readonly attrs?: AttrMap;
  readonly values?: readonly (HostTensor | undefined)[];
  readonly outputCount?: number;
  readonly inferSubgraph?: InferenceContextV1['inferSubgraph'];
}

/** Calls `definition.infer` on the given input infos and returns the output infos it set. */
export function inferOnValues(
  definition: OpDefinitionV1,
  inputs: readonly (ValueInfo | undefined)[],
  options: InferOnValuesOptions = {},
): (ValueInfo | undefined)[] {
  const outputs: (ValueInfo | undefined)[] = new Array(options.outputCount ?? definition.outputs.length).fill(undefined);
  let symbols = 0;
  const ctx: InferenceContextV1 = {
    opType: definition.type,
    nodeName: 'node',
    opsetVersion: definition.sinceVersion,
    inputCount: inputs.length,
    outputCount: outputs.length,
    attrs: createAttrReader(options.attrs ?? new Map()),
    input: (i) => inputs[i],
    inputValue: (i) => options.values?.[i],
    setOutput: (i, info) => {
      outputs[i] = info;
    },
    newSymbol: (hint = 's') => `${hint}_${++symbols}`,
    ...(options.inferSubgraph ? { inferSubgraph: options.inferSubgraph } : {}),
  };
  definition.infer(ctx);
  return outputs;
}
