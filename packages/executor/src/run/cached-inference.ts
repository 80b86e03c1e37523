import type { AttrReader, HostTensor, RuntimeValue, ValueInfo } from '@tsge/metadef';
import { isHostTensor } from '@tsge/metadef';
import type { KernelCall } from '../model/kernel-call.js';
import { inferOutputs } from './infer-outputs.js';

/** Inputs whose values inference read are remembered up to this many elements (shape-like tensors). */
const MAX_REMEMBERED_ELEMENTS = 1024;

interface Remembered {
  /** Dtypes and dims of every input. */
  readonly key: string;
  /** The inputs inference read the values of, with copies of those values. */
  readonly values: readonly { readonly index: number; readonly data: ArrayLike<unknown> }[];
  readonly outputs: readonly (ValueInfo | undefined)[] | undefined;
}

const remembered = new WeakMap<KernelCall, Remembered>();

function keyOf(inputs: readonly (RuntimeValue | undefined)[]): string | undefined {
  let key = '';
  for (const v of inputs) {
    if (v === undefined) key += '-;';
    else if (isHostTensor(v)) key += `${v.type}[${v.dims.join(',')}];`;
    else return undefined;
  }
  return key;
}

function sameValues(a: ArrayLike<unknown>, b: ArrayLike<unknown>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

/**
 * `inferOutputs` for a call without subgraphs, remembered per call: a dynamic-shape model run
 * again on the same shapes infers nothing again. What inference gave depends only on the inputs'
 * dtypes and dims and on the values it read (a Reshape's target, a Slice's starts), so it applies
 * again while those are equal; an op that read a large tensor's values is not remembered.
 */
export function inferOutputsCached(
  call: KernelCall,
  attrs: AttrReader,
  inputs: readonly (RuntimeValue | undefined)[],
): readonly (ValueInfo | undefined)[] | undefined {
  const key = keyOf(inputs);
  const known = key === undefined ? undefined : remembered.get(call);
  if (known && known.key === key && known.values.every((v) => sameValues(v.data, (inputs[v.index] as HostTensor).data)))
    return known.outputs;
  const read = new Set<number>();
  const outputs = inferOutputs(call, attrs, inputs, undefined, (i) => read.add(i));
  if (key === undefined) return outputs;
  const values: Remembered['values'][number][] = [];
  for (const index of read) {
    const v = inputs[index];
    if (!v || !isHostTensor(v) || v.data.length > MAX_REMEMBERED_ELEMENTS) {
      remembered.delete(call);
      return outputs;
    }
    values.push({ index, data: Array.from(v.data as ArrayLike<unknown>) });
  }
  remembered.set(call, { key, values, outputs });
  return outputs;
}
