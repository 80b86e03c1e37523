import { type DataType, type TypedArray, type Value, attr, storageConstructor } from '@tsge/metadef';
import type { Table } from '../schema/table.js';
import type { ImportContext, Layout } from './context.js';
import { ImportProblem, badOperator } from './problem.js';

/** TFLite `ActivationFunctionType`. */
export const ACTIVATION = { NONE: 0, RELU: 1, RELU_N1_TO_1: 2, RELU6: 3, TANH: 4, SIGN_BIT: 5 } as const;

/** The options table of the current operator (absent tables read as all defaults). */
export function options(ctx: ImportContext): Pick<Table, 'int32' | 'uint8' | 'int8' | 'bool' | 'float32' | 'int32s'> {
  const t = ctx.op?.options;
  if (t) return t;
  return {
    int32: (_s, f = 0) => f,
    uint8: (_s, f = 0) => f,
    int8: (_s, f = 0) => f,
    bool: (_s, f = false) => f,
    float32: (_s, f = 0) => f,
    int32s: () => undefined,
  };
}

/** Applies a fused activation to a float value. */
export function activate(ctx: ImportContext, value: Value, activation: number, shape: readonly number[]): Value {
  switch (activation) {
    case ACTIVATION.NONE:
      return value;
    case ACTIVATION.RELU:
      return ctx.node('Relu', [value], 'float32', shape);
    case ACTIVATION.RELU6:
      return clip(ctx, value, 0, 6, shape);
    case ACTIVATION.RELU_N1_TO_1:
      return clip(ctx, value, -1, 1, shape);
    case ACTIVATION.TANH:
      return ctx.node('Tanh', [value], 'float32', shape);
    case ACTIVATION.SIGN_BIT:
      return ctx.node('Sign', [value], 'float32', shape);
    default:
      return badOperator(`${ctx.opName()} has unknown fused activation ${activation}`);
  }
}

function clip(ctx: ImportContext, value: Value, lo: number, hi: number, shape: readonly number[]): Value {
  const min = ctx.constant('min', Float32Array.of(lo), [], 'float32');
  const max = ctx.constant('max', Float32Array.of(hi), [], 'float32');
  return ctx.node('Clip', [value, min, max], 'float32', shape);
}

/** Integer range of a quantized type. */
export function integerRange(dtype: DataType): [number, number] {
  switch (dtype) {
    case 'uint8':
      return [0, 255];
    case 'int8':
      return [-128, 127];
    case 'int16':
      return [-32768, 32767];
    default:
      return [-2147483648, 2147483647];
  }
}

/** Round half away from zero, as TFLite rounds quantized activation bounds. */
function roundAway(v: number): number {
  return v < 0 ? -Math.round(-v) : Math.round(v);
}

/**
 * A fused activation on a quantized result is a clamp of the integers (as TFLite computes it):
 * the bounds are the activation's range quantized with the output's scale and zero point.
 */
export function clampQuantized(
  ctx: ImportContext,
  value: Value,
  activation: number,
  dtype: DataType,
  scale: number,
  zeroPoint: number,
  shape: readonly number[],
): Value {
  if (activation === ACTIVATION.NONE) return value;
  const [qmin, qmax] = integerRange(dtype);
  let lo = qmin;
  let hi = qmax;
  const q = (x: number) => zeroPoint + roundAway(x / scale);
  if (activation === ACTIVATION.RELU) lo = Math.max(qmin, q(0));
  else if (activation === ACTIVATION.RELU6) {
    lo = Math.max(qmin, q(0));
    hi = Math.min(qmax, q(6));
  } else if (activation === ACTIVATION.RELU_N1_TO_1) {
    lo = Math.max(qmin, q(-1));
    hi = Math.min(qmax, q(1));
  } else
    throw new ImportProblem('TSGE-E3402', {
      op: `${ctx.opName()} with a quantized fused activation ${activation}`,
      version: ctx.op?.opcode.version ?? 1,
    });
  if (lo <= qmin && hi >= qmax) return value;
  const Ctor = storageConstructor(dtype) as unknown as { of(...values: number[]): TypedArray };
  const min = ctx.constant('qmin', Ctor.of(lo), [], dtype);
  const max = ctx.constant('qmax', Ctor.of(hi), [], dtype);
  return ctx.node('Clip', [value, min, max], dtype, shape);
}

/** Moves the elements of a constant into a permuted order (weights to the canonical layout). */
export function permuteData<T extends TypedArray>(data: T, shape: readonly number[], perm: readonly number[]): T {
  const rank = shape.length;
  const outShape = perm.map((p) => shape[p] as number);
  const inStrides = new Array<number>(rank).fill(1);
  for (let i = rank - 2; i >= 0; i--) inStrides[i] = (inStrides[i + 1] as number) * (shape[i + 1] as number);
  const strides = perm.map((p) => inStrides[p] as number);
  const out = new (data.constructor as new (n: number) => T)(data.length);
  const index = new Array<number>(rank).fill(0);
  for (let o = 0; o < out.length; o++) {
    let src = 0;
    for (let d = 0; d < rank; d++) src += (index[d] as number) * (strides[d] as number);
    (out as unknown as number[])[o] = (data as unknown as number[])[src] as number;
    for (let d = rank - 1; d >= 0; d--) {
      index[d] = (index[d] as number) + 1;
      if ((index[d] as number) < (outShape[d] as number)) break;
      index[d] = 0;
    }
  }
  return out;
}

/** Explicit TFLite SAME padding for one spatial axis ([before, after]), as TFLite computes it. */
export function samePadding(size: number, kernel: number, stride: number, dilation: number): [number, number] {
  const effective = (kernel - 1) * dilation + 1;
  const out = Math.ceil(size / stride);
  const total = Math.max((out - 1) * stride + effective - size, 0);
  const before = Math.floor(total / 2);
  return [before, total - before];
}

/** ONNX window attributes (kernel, strides, dilations, pads) for a NHWC input of a 2-D window op. */
export function windowAttrs(
  ctx: ImportContext,
  inputShape: readonly number[],
  window: { kernel: [number, number]; stride: [number, number]; dilation: [number, number]; same: boolean },
): Record<string, ReturnType<typeof attr.ints>> {
  const [kh, kw] = window.kernel;
  const [sh, sw] = window.stride;
  const [dh, dw] = window.dilation;
  if (!(sh > 0 && sw > 0 && dh > 0 && dw > 0 && kh > 0 && kw > 0)) {
    badOperator(`${ctx.opName()} has a non-positive stride, dilation or window (${window.stride}, ${window.dilation}, ${window.kernel})`);
  }
  const h = inputShape[1] as number;
  const w = inputShape[2] as number;
  const base = { strides: attr.ints([sh, sw]), dilations: attr.ints([dh, dw]) } as Record<string, ReturnType<typeof attr.ints>>;
  if (!window.same) return { ...base, pads: attr.ints([0, 0, 0, 0]) };
  if (h < 0 || w < 0) return { ...base, auto_pad: attr.string('SAME_UPPER') as ReturnType<typeof attr.ints> };
  const [top, bottom] = samePadding(h, kh, sh, dh);
  const [left, right] = samePadding(w, kw, sw, dw);
  return { ...base, pads: attr.ints([top, left, bottom, right]) };
}

/** The layout a layout-agnostic op runs in: NCHW when every 4-D non-constant input already has it. */
export function agnosticLayout(ctx: ImportContext, inputs: readonly number[], outputRank: number): Layout {
  if (outputRank !== 4) return 'native';
  let any = false;
  for (const i of inputs) {
    const t = ctx.inputTensor(i);
    if (!t || ctx.isConst(t)) continue;
    if (t.shape.length !== 4 || !ctx.hasLayout(t, 'nchw')) return 'native';
    any = true;
  }
  return any ? 'nchw' : 'native';
}

/** Normalises a possibly negative axis. */
export function normAxis(ctx: ImportContext, axis: number, rank: number): number {
  const a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= Math.max(rank, 1)) badOperator(`${ctx.opName()}: axis ${axis} is out of range for rank ${rank}`);
  return a;
}
