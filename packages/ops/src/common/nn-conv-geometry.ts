/**
 * Window geometry shared by Conv, ConvTranspose and the pooling ops: output sizes and pads from
 * auto_pad/pads/strides/dilations, and a gather table mapping (kernel offset, output position)
 * to an input position so the N-D cases need no per-rank code.
 */
import type { AttrReader, Dim } from '@tsge/metadef';

export interface WindowAttrs {
  readonly kernel: readonly number[];
  readonly strides: readonly number[];
  readonly dilations: readonly number[];
  /** [begin..., end...] as given (ignored when autoPad is not NOTSET). */
  readonly pads: readonly number[];
  readonly autoPad: string;
  readonly ceilMode: boolean;
}

/** Reads strides/dilations/pads/auto_pad/ceil_mode for a window of `kernel` size. */
export function readWindowAttrs(attrs: AttrReader, kernel: readonly number[]): WindowAttrs {
  const n = kernel.length;
  const ones = new Array<number>(n).fill(1);
  const strides = attrs.ints('strides', ones);
  const dilations = attrs.ints('dilations', ones);
  const pads = attrs.ints('pads', new Array<number>(2 * n).fill(0));
  return {
    kernel,
    strides: strides.length === n ? strides : ones,
    dilations: dilations.length === n ? dilations : ones,
    pads: pads.length === 2 * n ? pads : new Array<number>(2 * n).fill(0),
    autoPad: attrs.string('auto_pad', 'NOTSET'),
    ceilMode: attrs.int('ceil_mode', 0) !== 0,
  };
}

/** One output spatial size and its pads; `in` must be a known size. */
export function windowOutputSize(w: WindowAttrs, axis: number, size: number): { out: number; begin: number; end: number } {
  const k = w.kernel[axis] as number;
  const s = w.strides[axis] as number;
  const d = w.dilations[axis] as number;
  const extent = (k - 1) * d + 1;
  if (w.autoPad === 'SAME_UPPER' || w.autoPad === 'SAME_LOWER') {
    const out = Math.ceil(size / s);
    const total = Math.max(0, (out - 1) * s + extent - size);
    const small = Math.floor(total / 2);
    const begin = w.autoPad === 'SAME_UPPER' ? small : total - small;
    return { out, begin, end: total - begin };
  }
  if (w.autoPad === 'VALID') {
    return { out: Math.max(0, Math.floor((size - extent) / s) + 1), begin: 0, end: 0 };
  }
  const n = w.kernel.length;
  const begin = w.pads[axis] as number;
  const end = w.pads[axis + n] as number;
  const span = size + begin + end - extent;
  if (span < 0) return { out: 0, begin, end };
  let out = w.ceilMode ? Math.ceil(span / s) + 1 : Math.floor(span / s) + 1;
  // a last window starting past the input and its left pad is dropped
  if (w.ceilMode && (out - 1) * s >= size + begin) out--;
  return { out, begin, end };
}

/** Output spatial dims for inference: unknown/symbolic input dims give -1. */
export function windowOutputDims(w: WindowAttrs, inDims: readonly Dim[]): Dim[] {
  return inDims.map((d, i) => (typeof d === 'number' && d >= 0 ? windowOutputSize(w, i, d).out : -1));
}
