import type { AttrReader, DataType, InferenceContextV1, OpRegistry, RuntimeValue, Shape, ValueInfo } from '@tsge/metadef';
import { AttrError, InferenceError, TsgeError, isHostTensor, shapeToString } from '@tsge/metadef';
import { createDefaultOpRegistry } from '@tsge/ops';
import type { KernelCall } from '../model/kernel-call.js';

/** The op definitions of this thread (read-only once built). */
let ops: OpRegistry | undefined;

function valueInfo(value: RuntimeValue | undefined): ValueInfo | undefined {
  if (value === undefined) return undefined;
  if (isHostTensor(value)) return { dtype: value.type, shape: value.dims };
  if (value.kind === 'sequence') {
    const first = value.items[0];
    return { dtype: value.elementType, shape: [], kind: 'sequence', ...(first ? { element: valueInfo(first) as ValueInfo } : {}) };
  }
  const inner = valueInfo(value.value);
  return inner ? { ...inner, kind: 'optional', element: inner } : undefined;
}

/** The outputs a subgraph attribute's body gave when the kernel last ran it (undefined: not run). */
export type ExecutedBodies = (attrName: string) => readonly (RuntimeValue | undefined)[] | undefined;

/**
 * What the op's inference function (the one the compiler ran) says of a call's outputs, given the
 * run's actual inputs: shapes with numbers where they follow from the inputs, symbols where they
 * depend on data (NonZero's count). Ops with subgraphs (If, Loop, Scan) infer from what their
 * bodies gave when the kernel ran them (`bodies`; a body not run, like If's other branch, counts as
 * unknown), through the op's own `inferSubgraph` use. Undefined when the op has no definition here
 * (a custom op: its kernel decides alone) or has subgraphs and no `bodies`. An input the op rejects
 * is TSGE-E4001 naming the node. `onValueRead` hears of each input whose values inference reads.
 */
export function inferOutputs(
  call: KernelCall,
  attrs: AttrReader,
  inputs: readonly (RuntimeValue | undefined)[],
  bodies?: ExecutedBodies,
  onValueRead?: (index: number) => void,
): readonly (ValueInfo | undefined)[] | undefined {
  ops ??= createDefaultOpRegistry();
  const def = ops.get(call.opType, call.domain);
  const hasBodies = [...call.attrs.values()].some((a) => a.kind === 'graph' || a.kind === 'graphs');
  if (!def || (hasBodies && !bodies)) return undefined;
  const outputs: (ValueInfo | undefined)[] = new Array(call.outputs.length).fill(undefined);
  let symbols = 0;
  const context: InferenceContextV1 = {
    opType: call.opType,
    nodeName: call.node,
    opsetVersion: call.opsetVersion || def.sinceVersion,
    inputCount: inputs.length,
    outputCount: call.outputs.length,
    attrs,
    input: (i) => valueInfo(inputs[i]),
    inputValue: (i) => {
      onValueRead?.(i);
      const v = inputs[i];
      return v !== undefined && isHostTensor(v) ? v : undefined;
    },
    setOutput: (i, info) => {
      if (i >= 0 && i < outputs.length) outputs[i] = info;
    },
    newSymbol: (hint = 'n') => `${hint}?${++symbols}`,
    ...(hasBodies && bodies ? { inferSubgraph: (attrName: string) => (bodies(attrName) ?? []).map(valueInfo) } : {}),
  };
  try {
    def.infer(context);
  } catch (error) {
    const location = { node: call.node, opType: call.opType, domain: call.domain };
    // an op's own refusal (as at compile time) is the whole story; anything else is an internal
    // error of the inference function and keeps its cause
    if (error instanceof InferenceError || error instanceof AttrError)
      throw TsgeError.of('TSGE-E4001', { reason: `at run time: ${error.message}` }, location);
    const reason = error instanceof Error ? error.message : String(error);
    throw TsgeError.of('TSGE-E4001', { reason: `at run time: internal error in inference: ${reason}` }, location, error);
  }
  return outputs;
}

/**
 * Checks the dims and dtype a kernel asks for output `index` against inference: every dim inference
 * knows must match; the kernel decides only the dims that depend on data (symbols, and -1 where an
 * inference function says "unknown" in numbers). A mismatch is TSGE-E6203.
 */
export function checkInferredOutput(
  call: KernelCall,
  index: number,
  inferred: ValueInfo | undefined,
  dims: readonly number[],
  dtype: DataType,
): void {
  if (!inferred || (inferred.kind !== undefined && inferred.kind !== 'tensor')) return;
  const shape: Shape = inferred.shape;
  const fits =
    shape.length === dims.length && shape.every((d, i) => typeof d !== 'number' || d < 0 || d === dims[i]) && inferred.dtype === dtype;
  if (!fits) {
    throw TsgeError.of(
      'TSGE-E6203',
      {
        node: call.node,
        op: call.opType,
        reason: `the kernel asks for output ${index} as ${dtype} ${shapeToString(dims)}; the op's inference gives ${inferred.dtype} ${shapeToString(shape)}`,
      },
      { node: call.node, opType: call.opType, domain: call.domain },
    );
  }
}
