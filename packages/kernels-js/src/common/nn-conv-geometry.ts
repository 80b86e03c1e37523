/**
 * Window geometry shared by Conv, ConvTranspose and the pooling ops: output sizes and pads from
 * auto_pad/pads/strides/dilations, and a gather table mapping (kernel offset, output position)
 * to an input position so the N-D cases need no per-rank code.
 */
import { type WindowAttrs, windowOutputSize } from '@tsge/ops/kernel-support';

export interface WindowGeometry {
  readonly inDims: readonly number[];
  readonly outDims: readonly number[];
  readonly padsBegin: readonly number[];
  readonly padsEnd: readonly number[];
  readonly kernel: readonly number[];
  readonly strides: readonly number[];
  readonly dilations: readonly number[];
}

/** Geometry of a window op on concrete spatial dims. */
export function windowGeometry(w: WindowAttrs, inDims: readonly number[]): WindowGeometry {
  const outDims: number[] = [];
  const padsBegin: number[] = [];
  const padsEnd: number[] = [];
  for (let i = 0; i < inDims.length; i++) {
    const r = windowOutputSize(w, i, inDims[i] as number);
    outDims.push(r.out);
    padsBegin.push(r.begin);
    padsEnd.push(r.end);
  }
  return { inDims, outDims, padsBegin, padsEnd, kernel: w.kernel, strides: w.strides, dilations: w.dilations };
}

/** Sentinels in a gather table. */
export const IN_PADDING = -1;
export const OUTSIDE_PADDING = -2;

/**
 * table[k * outSize + o] = flat input index seen by kernel offset k at output position o, or
 * IN_PADDING when it falls in the pads, or OUTSIDE_PADDING past them (ceil-mode overhang).
 */
export function windowGatherTable(g: WindowGeometry): Int32Array {
  const rank = g.inDims.length;
  let kSize = 1;
  let outSize = 1;
  for (let i = 0; i < rank; i++) {
    kSize *= g.kernel[i] as number;
    outSize *= g.outDims[i] as number;
  }
  const table = new Int32Array(kSize * outSize);
  const kIdx = new Array<number>(rank).fill(0);
  const oIdx = new Array<number>(rank).fill(0);
  for (let k = 0; k < kSize; k++) {
    oIdx.fill(0);
    for (let o = 0; o < outSize; o++) {
      let flat = 0;
      let state = 0; // 0 inside, 1 in padding, 2 outside
      for (let a = 0; a < rank; a++) {
        const size = g.inDims[a] as number;
        const pos =
          (oIdx[a] as number) * (g.strides[a] as number) + (kIdx[a] as number) * (g.dilations[a] as number) - (g.padsBegin[a] as number);
        if (pos < 0 || pos >= size) {
          if (pos < -(g.padsBegin[a] as number) || pos >= size + (g.padsEnd[a] as number)) state = 2;
          else if (state === 0) state = 1;
        }
        flat = flat * size + pos;
      }
      table[k * outSize + o] = state === 0 ? flat : state === 1 ? IN_PADDING : OUTSIDE_PADDING;
      for (let a = rank - 1; a >= 0; a--) {
        oIdx[a]++;
        if ((oIdx[a] as number) < (g.outDims[a] as number)) break;
        oIdx[a] = 0;
      }
    }
    for (let a = rank - 1; a >= 0; a--) {
      kIdx[a]++;
      if ((kIdx[a] as number) < (g.kernel[a] as number)) break;
      kIdx[a] = 0;
    }
  }
  return table;
}
