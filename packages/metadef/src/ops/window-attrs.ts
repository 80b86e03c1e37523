/**
 * The attribute rules of the sliding-window ops (Conv and its quantized and fused forms,
 * ConvTranspose, DeformConv and the pools). One rule set for every reader of attribute values:
 * the ops' shape inference applies it when the compiler (or the executor, at run time) infers a
 * node, and the `.om` reader applies it to the attributes a task carries, so a bad value is
 * reported where it is first known instead of reaching a kernel as a huge or negative size.
 */
import type { AttrReader, AttrValue } from '../types/attr.js';
import { type Dim, type Shape, isUnknownRank } from '../types/shape.js';

/** The largest window size, stride, dilation or pad a kernel accepts (its index tables are int32). */
export const MAX_WINDOW_VALUE = 0x7fffffff;

const AUTO_PADS = new Set(['NOTSET', 'SAME_UPPER', 'SAME_LOWER', 'VALID']);

interface WindowOpRule {
  /** Input index of the weights [M, C/group, k...] (ConvTranspose: [C, M/group, k...]); -1 for pools. */
  readonly weights: number;
  readonly transpose?: boolean;
  readonly pool?: boolean;
}

// keyed by op type; tsge::FusedConv carries Conv's attributes
const RULES = new Map<string, WindowOpRule>([
  ['Conv', { weights: 1 }],
  ['FusedConv', { weights: 1 }],
  ['ConvInteger', { weights: 1 }],
  ['QLinearConv', { weights: 3 }],
  ['DeformConv', { weights: 1 }],
  ['ConvTranspose', { weights: 1, transpose: true }],
  ['AveragePool', { weights: -1, pool: true }],
  ['MaxPool', { weights: -1, pool: true }],
  ['LpPool', { weights: -1, pool: true }],
]);

/** Whether `opType` is one of the window ops these rules cover. */
export function isWindowOp(opType: string): boolean {
  return RULES.has(opType);
}

/** What is known of a window op's inputs; undefined or unknown-rank shapes skip the checks that need them. */
export interface WindowInputs {
  /** X: [N, C, spatial...]. */
  readonly x?: Shape | undefined;
  /** Shapes of every input by index (the weights are picked by op type). */
  readonly inputs?: readonly (Shape | undefined)[];
}

const known = (d: Dim | undefined): d is number => typeof d === 'number' && d >= 0;
const list = (values: readonly number[]): string => `[${values.join(',')}]`;

/**
 * The first problem of a window op's attributes as a sentence naming the attribute (for example
 * "attribute strides [1,0]: every value must be at least 1"), or undefined when they are valid or
 * the op is not a window op. Checks counts against the spatial rank, value ranges, kernel_shape
 * against the weights and group against the channels.
 */
export function windowAttrsProblem(opType: string, attrs: AttrReader, shapes: WindowInputs = {}): string | undefined {
  const rule = RULES.get(opType);
  if (!rule) return undefined;
  const x = shapes.x !== undefined && !isUnknownRank(shapes.x) ? shapes.x : undefined;
  const wShape = rule.weights >= 0 ? shapes.inputs?.[rule.weights] : undefined;
  const w = wShape !== undefined && !isUnknownRank(wShape) ? wShape : undefined;
  if (x && x.length < 3) return `input X has rank ${x.length}; it must be at least 3`;
  if (x && w && w.length !== x.length) return `the weights have rank ${w.length} but X has rank ${x.length}`;

  const ints = (name: string): readonly number[] | string | undefined => {
    const value: AttrValue | undefined = attrs.get(name);
    if (value === undefined) return undefined;
    if (value.kind !== 'ints') return `attribute ${name} has kind ${value.kind}, expected ints`;
    return value.value;
  };
  const kernelAttr = ints('kernel_shape');
  if (typeof kernelAttr === 'string') return kernelAttr;
  // the spatial rank: from X, else the weights, else kernel_shape
  const rank = x ? x.length - 2 : w ? w.length - 2 : kernelAttr?.length;
  if (rule.pool && kernelAttr === undefined) return 'attribute kernel_shape is required';
  if (rank === undefined) return undefined;

  const checkList = (name: string, count: number, min: number): string | undefined => {
    const values = ints(name);
    if (values === undefined || typeof values === 'string') return values;
    if (values.length !== count) return `attribute ${name} ${list(values)} has ${values.length} values; ${count} expected`;
    if (!values.every((v) => Number.isSafeInteger(v) && v >= min && v <= MAX_WINDOW_VALUE))
      return `attribute ${name} ${list(values)}: every value must be an integer from ${min} to ${MAX_WINDOW_VALUE}`;
    return undefined;
  };
  const bad =
    checkList('kernel_shape', rank, 1) ??
    checkList('strides', rank, 1) ??
    checkList('dilations', rank, 1) ??
    checkList('pads', 2 * rank, 0) ??
    (rule.transpose ? checkList('output_padding', rank, 0) : undefined);
  if (bad) return bad;

  const autoPad = attrs.get('auto_pad');
  if (autoPad !== undefined && (autoPad.kind !== 'string' || !AUTO_PADS.has(autoPad.value)))
    return `attribute auto_pad ${JSON.stringify(autoPad.value)} is not one of ${[...AUTO_PADS].join(', ')}`;

  const kernel = kernelAttr ?? (w ? w.slice(2) : undefined);
  if (kernelAttr && w) {
    const wKernel = w.slice(2);
    if (kernelAttr.some((k, i) => known(wKernel[i]) && wKernel[i] !== k))
      return `attribute kernel_shape ${list(kernelAttr)} disagrees with the weights' spatial dims [${wKernel.join(',')}]`;
  }

  if (rule.pool) {
    for (const flag of ['ceil_mode', 'storage_order', 'count_include_pad']) {
      const v = attrs.get(flag);
      if (v !== undefined && !((v.kind === 'int' && (v.value === 0 || v.value === 1)) || v.kind === 'bool'))
        return `attribute ${flag} must be 0 or 1`;
    }
    const p = attrs.get('p');
    if (p !== undefined && (p.kind !== 'int' || p.value < 1 || p.value > MAX_WINDOW_VALUE)) return 'attribute p must be a positive integer';
    // a window that sees only padding has no value (onnxruntime rejects it too)
    const pads = ints('pads');
    if (Array.isArray(pads) && kernelAttr && pads.some((v, i) => v >= (kernelAttr[i % rank] as number)))
      return `attribute pads ${list(pads)}: every pad must be smaller than the kernel_shape ${list(kernelAttr)}`;
    return undefined;
  }

  const groupValue = attrs.get('group');
  if (groupValue !== undefined && (groupValue.kind !== 'int' || !Number.isSafeInteger(groupValue.value) || groupValue.value < 1))
    return `attribute group ${String(groupValue.value)} must be a positive integer`;
  const group = groupValue?.kind === 'int' ? groupValue.value : 1;
  const channels = x?.[1];
  if (w) {
    if (rule.transpose) {
      // W [C, M/group, k...]
      if (known(channels) && known(w[0]) && w[0] !== channels)
        return `the weights [${w.join(',')}] do not have ${channels} input channels (X has [${x?.join(',')}])`;
    } else if (known(w[0]) && w[0] % group !== 0) {
      return `attribute group ${group} does not divide the ${w[0]} output channels of the weights [${w.join(',')}]`;
    } else if (known(channels) && known(w[1]) && w[1] * group !== channels) {
      return `attribute group ${group} and the weights [${w.join(',')}] need ${w[1] * group} input channels; X has ${channels}`;
    }
  }
  if (known(channels) && channels % group !== 0) return `attribute group ${group} does not divide the ${channels} input channels`;

  if (rule.transpose && kernel) {
    const strides = ints('strides');
    const dilations = ints('dilations');
    const outputPadding = ints('output_padding');
    if (Array.isArray(outputPadding)) {
      for (let i = 0; i < rank; i++) {
        const s = Array.isArray(strides) ? (strides[i] as number) : 1;
        const d = Array.isArray(dilations) ? (dilations[i] as number) : 1;
        if ((outputPadding[i] as number) >= Math.max(s, d))
          return `attribute output_padding ${list(outputPadding)}: each value must be smaller than its stride or dilation`;
      }
    }
    const outputShape = ints('output_shape');
    if (typeof outputShape === 'string') return outputShape;
    if (outputShape !== undefined) {
      if (outputShape.length !== rank && outputShape.length !== rank + 2)
        return `attribute output_shape ${list(outputShape)} has ${outputShape.length} values; ${rank} expected`;
      if (!outputShape.every((v) => Number.isSafeInteger(v) && v >= 0 && v <= MAX_WINDOW_VALUE))
        return `attribute output_shape ${list(outputShape)}: every value must be an integer from 0 to ${MAX_WINDOW_VALUE}`;
    }
  }
  return undefined;
}
