import { type KernelContextV1, type KernelV1, type LinearMemory, TSGE_DOMAIN } from '@tsge/metadef';
import { defineKernel, rotaryStrides, rowOffset } from '@tsge/kernels-js/kernel-support';
import { APPLY_ROTARY } from '@tsge/ops/kernel-support';
import { rotaryRows } from './rotary-module.js';
import { inMemory } from './simd-matmul.js';
import { runTiles, splitRange, tileFunction } from './tiles.js';

/**
 * tsge::ApplyRotary on float32 in device memory: rows of x (all axes but the last) run in
 * WebAssembly SIMD (rotary-module.ts), split across threads. cos and sin may broadcast over any
 * leading axis; along the innermost leading axis their row advances by a fixed step (0 when
 * repeated), so each call covers a run of rows. Other dtypes and host tensors go to the reference.
 */
export function simdApplyRotaryKernel(reference: KernelV1): KernelV1 {
  return defineKernel({
    opType: APPLY_ROTARY,
    domain: TSGE_DOMAIN,
    name: 'wasm-simd',
    dtypes: ['float32'],
    parallel: true,
    compute: (ctx: KernelContextV1) => {
      const memory = ctx.memory;
      const [x, cos, sin] = [ctx.tensor(0), ctx.tensor(1), ctx.tensor(2)];
      const rank = x?.dims.length ?? 0;
      if (!memory || !x || !cos || !sin || rank === 0 || ![x, cos, sin].every((t) => t.data instanceof Float32Array))
        return reference.compute(ctx);
      if (!inMemory(memory, x, cos, sin)) return reference.compute(ctx);
      const width = x.dims[rank - 1] as number;
      if (width % 2 !== 0) return reference.compute(ctx);
      const cosStrides = rotaryStrides(ctx, cos, x.dims, 'cos');
      const sinStrides = rotaryStrides(ctx, sin, x.dims, 'sin');
      const y = ctx.output(0, x.dims, 'float32');
      if (!(y.data instanceof Float32Array) || !inMemory(memory, y)) return reference.compute(ctx);
      if (width === 0 || y.data.length === 0) return;
      const rows = y.data.length / width;
      const shape = [ctx.attrs.int('interleaved', 0) !== 0 ? 1 : 0, rank, ...x.dims, ...cosStrides, ...sinStrides];
      const at = (t: { data: unknown }) => (t.data as Float32Array).byteOffset;
      const tiles = splitRange(rows, ctx.parallel?.threads ?? 1, 1, width * 3, 1 << 16).map(([r0, r1]) => [
        at(x),
        at(y),
        at(cos),
        at(sin),
        r0,
        r1,
        ...shape,
      ]);
      runTiles(memory, ctx.parallel, applyRotaryTile, tiles);
    },
  });
}

const APPLY_ROTARY_TILE = 'js.applyRotary';

/**
 * Tile: rows [r0, r1) of x; its arguments are the byte addresses of x, y, cos and sin, the row
 * range, 1 for interleaved pairs, x's rank, its dims and the element strides of cos and sin
 * broadcast to them.
 */
export const applyRotaryTile = tileFunction(APPLY_ROTARY_TILE, (memory: LinearMemory, t: readonly number[]) => {
  const [x, y, cos, sin, r0, r1, interleaved, rank] = t as [number, number, number, number, number, number, number, number];
  const dims = t.slice(8, 8 + rank);
  const cosStrides = t.slice(8 + rank, 8 + 2 * rank);
  const sinStrides = t.slice(8 + 2 * rank, 8 + 3 * rank);
  const width = dims[rank - 1] as number;
  const half = width / 2;
  // rows of one run share every leading index but the innermost, so cos and sin advance evenly
  const run = rank > 1 ? (dims[rank - 2] as number) : 1;
  const cosStep = rank > 1 ? (cosStrides[rank - 2] as number) : 0;
  const sinStep = rank > 1 ? (sinStrides[rank - 2] as number) : 0;
  const simd = rotaryRows(memory, interleaved !== 0);
  for (let r = r0; r < r1; ) {
    const end = Math.min(r1, (Math.floor(r / run) + 1) * run);
    const c = cos + rowOffset(r, dims, cosStrides) * 4;
    const s = sin + rowOffset(r, dims, sinStrides) * 4;
    if (simd) simd(x + r * width * 4, y + r * width * 4, c, s, end - r, half, cosStep * 4, sinStep * 4);
    else rotateRows(memory, { x: x + r * width * 4, y: y + r * width * 4, c, s }, end - r, [half, cosStep, sinStep], interleaved !== 0);
    r = end;
  }
});

/** Without SIMD: the same rows in JavaScript (float32 products, then the add). */
function rotateRows(
  memory: LinearMemory,
  at: { x: number; y: number; c: number; s: number },
  rows: number,
  [half, cosStep, sinStep]: readonly number[],
  interleaved: boolean,
): void {
  const width = 2 * (half as number);
  const h = half as number;
  const xs = new Float32Array(memory.buffer, at.x, rows * width);
  const ys = new Float32Array(memory.buffer, at.y, rows * width);
  const cs = new Float32Array(memory.buffer, at.c, (rows - 1) * (cosStep as number) + width);
  const ss = new Float32Array(memory.buffer, at.s, (rows - 1) * (sinStep as number) + width);
  const f = Math.fround;
  for (let r = 0; r < rows; r++) {
    const o = r * width;
    const c = r * (cosStep as number);
    const s = r * (sinStep as number);
    for (let i = 0; i < h; i++) {
      // the pair of element a is b: a half apart, or adjacent when interleaved
      const a = interleaved ? 2 * i : i;
      const b = interleaved ? 2 * i + 1 : h + i;
      const x1 = xs[o + a] as number;
      const x2 = xs[o + b] as number;
      ys[o + a] = f(x1 * (cs[c + a] as number)) - f(x2 * (ss[s + a] as number));
      ys[o + b] = f(x2 * (cs[c + b] as number)) + f(x1 * (ss[s + b] as number));
    }
  }
}
