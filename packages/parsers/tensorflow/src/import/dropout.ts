import { toNumberArray } from '@tsge/metadef';
import { decodeTensor } from './tensor.js';
import type { TfNode } from './tf-node.js';

/** Synthetic op the importer converts to a Bernoulli draw (see rewriteDropout). */
export const BERNOULLI_OP = '_TsgeBernoulli';

/**
 * TF1 dropout is `floor(keep_prob + uniform[0, 1))`, a Bernoulli(keep_prob) mask. The canonical op
 * set has Bernoulli but no uniform generator, so the pattern becomes one Bernoulli node over the
 * uniform's shape (exact in distribution; all ones when keep_prob = 1, as inference graphs feed).
 */
export function rewriteDropout(nodes: Map<string, TfNode>): void {
  const scalar = (name: string): number | undefined => {
    let node = nodes.get(name);
    for (let hops = 0; node?.op === 'Identity' && hops < 16; hops++) node = nodes.get(node.inputs[0]?.node ?? '');
    if (node?.op !== 'Const') return undefined;
    try {
      const value = node.attr.value?.tensor;
      if (!value) return undefined;
      const numbers = toNumberArray(decodeTensor(value, node.name));
      return numbers.length === 1 ? numbers[0] : undefined;
    } catch {
      return undefined;
    }
  };
  /** The RandomUniform node behind a uniform [0, 1) value, if that is what `name` is. */
  const uniformSource = (name: string): TfNode | undefined => {
    const node = nodes.get(name);
    if (!node) return undefined;
    if (node.op === 'RandomUniform') return node;
    if ((node.op === 'Add' || node.op === 'AddV2') && node.inputs.length === 2) {
      const [mul, min] = node.inputs as [TfNode['inputs'][number], TfNode['inputs'][number]];
      if (scalar(min.node) !== 0) return undefined;
      const m = nodes.get(mul.node);
      if (m?.op !== 'Mul' || m.inputs.length !== 2) return undefined;
      const ru = nodes.get(m.inputs[0]?.node ?? '');
      if (ru?.op !== 'RandomUniform') return undefined;
      const range = nodes.get(m.inputs[1]?.node ?? '');
      const width =
        range?.op === 'Sub'
          ? (scalar(range.inputs[0]?.node ?? '') ?? Number.NaN) - (scalar(range.inputs[1]?.node ?? '') ?? Number.NaN)
          : scalar(m.inputs[1]?.node ?? '');
      return width === 1 ? ru : undefined;
    }
    return undefined;
  };
  for (const node of nodes.values()) {
    if (node.op !== 'Floor' || node.inputs.length !== 1) continue;
    const add = nodes.get(node.inputs[0]?.node ?? '');
    if ((add?.op !== 'Add' && add?.op !== 'AddV2') || add.inputs.length !== 2) continue;
    for (let side = 0; side < 2; side++) {
      const uniform = uniformSource(add.inputs[side]?.node ?? '');
      const shape = uniform?.inputs[0];
      if (!uniform || !shape) continue;
      node.op = BERNOULLI_OP;
      node.inputs = [add.inputs[1 - side] as TfNode['inputs'][number], shape];
      break;
    }
  }
}
