import type { KernelContextV1, KernelV1 } from '@tsge/metadef';
import { readWindowAttrs } from '@tsge/ops/kernel-support';
import { windowGeometry, defineKernel } from '@tsge/kernels-js/kernel-support';
import type { PoolKind } from './pool-module.js';
import { simdKernels } from './kernel-modules.js';
import { inMemory } from './simd-matmul.js';
import { tileFunction, runTiles, splitRange } from './tiles.js';

/**
 * MaxPool (without Indices) and AveragePool over 2-D float32 planes in device memory; other ranks,
 * dtypes and the Indices output go to the reference kernel.
 */
function simdPoolKernel(opType: string, kind: PoolKind, reference: KernelV1): KernelV1 {
  return defineKernel({
    opType,
    name: 'wasm-simd',
    dtypes: ['float32'],
    parallel: true,
    compute: (ctx: KernelContextV1) => {
      const memory = ctx.memory;
      const x = ctx.tensor(0);
      if (!memory || x?.type !== 'float32' || x.dims.length !== 4 || ctx.outputCount > 1 || !inMemory(memory, x)) {
        return reference.compute(ctx);
      }
      const kernel = ctx.attrs.ints('kernel_shape', []);
      if (kernel.length !== 2 || kernel.some((k) => !(k >= 1))) return reference.compute(ctx);
      const w = readWindowAttrs(ctx.attrs, kernel);
      if (w.strides.some((s) => !(s >= 1)) || w.dilations.some((d) => !(d >= 1))) return reference.compute(ctx);
      const [n, c, H, W] = x.dims as [number, number, number, number];
      const g = windowGeometry(w, [H, W]);
      const [OH, OW] = g.outDims as [number, number];
      const kernels = simdKernels(memory);
      if (!kernels) return reference.compute(ctx);
      const y = ctx.output(0, [n, c, OH, OW], 'float32');
      if (!inMemory(memory, y)) return reference.compute(ctx);
      if (n * c * OH * OW === 0) return;
      const [KH, KW] = kernel as [number, number];
      const [sh, sw] = g.strides as [number, number];
      const [dh, dw] = g.dilations as [number, number];
      const [pt, pl] = g.padsBegin as [number, number];
      const [pb, pr] = g.padsEnd as [number, number];
      // one window over each whole unpadded plane (Keras' global pooling as AveragePool): a plane
      // reduction, where the window kernels' per-output loop ran at about 1 GFLOP/s on 128×128
      if (OH === 1 && OW === 1 && KH === H && KW === W && dh === 1 && dw === 1 && pt === 0 && pl === 0 && pb === 0 && pr === 0) {
        const run = kind === 'max' ? kernels.globalPoolMax : kernels.globalPoolAvg;
        run((x.data as Float32Array).byteOffset, (y.data as Float32Array).byteOffset, n * c, H * W);
        return;
      }
      // vector columns: every tap of ow..ow+3 (and, for stride 2, the odd float after the last) inside the row
      const vectorStride = sw === 2 ? 2 : 1;
      const owLo = Math.ceil(pl / sw);
      const owHi = Math.floor((W - sw + pl - (KW - 1) * dw) / sw);
      const includePad = kind === 'avg' && ctx.attrs.int('count_include_pad', 0) !== 0;
      const variant = (kind === 'max' ? 0 : 2) + (vectorStride === 2 ? 1 : 0);
      const X = (x.data as Float32Array).byteOffset;
      const Y = (y.data as Float32Array).byteOffset;
      const rest = [OW, KH, KW, sh, sw, pt, pl, dh, dw, owLo, owHi];
      const bounds = [includePad ? -pt : 0, includePad ? H + pb : H, includePad ? -pl : 0, includePad ? W + pr : W];
      // planes split across threads (a window tap costs about a nanosecond: tiles from 128K taps)
      const tiles = splitRange(n * c, ctx.parallel?.threads ?? 1, 1, OH * OW * KH * KW, 1 << 17).map(([p0, p1]) => [
        variant,
        X + p0 * H * W * 4,
        Y + p0 * OH * OW * 4,
        p1 - p0,
        H,
        W,
        OH,
        ...rest,
        ...bounds,
      ]);
      runTiles(memory, ctx.parallel, poolPlanesTile, tiles);
    },
  });
}

const POOL_PLANES = 'simd.poolPlanes';

/** Tile: a run of whole planes of MaxPool/AveragePool; argument 0 picks max/avg × stride 1/2. */
export const poolPlanesTile = tileFunction(POOL_PLANES, (memory, t) => {
  const kernels = simdKernels(memory);
  if (!kernels) throw new Error(`${POOL_PLANES} needs WebAssembly SIMD`);
  const [variant, ...args] = t as number[];
  const run = [kernels.poolMaxS1, kernels.poolMaxS2, kernels.poolAvgS1, kernels.poolAvgS2][variant as number];
  if (!run) throw new Error(`${POOL_PLANES}: unknown variant ${variant}`);
  (run as (...a: number[]) => void)(...args);
});

/** GlobalMaxPool / GlobalAveragePool over float32 [N, C, ...spatial] in device memory. */
function simdGlobalPoolKernel(opType: string, kind: PoolKind, reference: KernelV1): KernelV1 {
  return defineKernel({
    opType,
    name: 'wasm-simd',
    dtypes: ['float32'],
    compute: (ctx: KernelContextV1) => {
      const memory = ctx.memory;
      const x = ctx.tensor(0);
      if (!memory || x?.type !== 'float32' || x.dims.length < 3 || !inMemory(memory, x)) return reference.compute(ctx);
      const kernels = simdKernels(memory);
      if (!kernels) return reference.compute(ctx);
      const planes = (x.dims[0] as number) * (x.dims[1] as number);
      const size = x.dims.slice(2).reduce((p, d) => p * d, 1);
      if (size === 0) return reference.compute(ctx);
      const y = ctx.output(0, [x.dims[0] as number, x.dims[1] as number, ...x.dims.slice(2).map(() => 1)], 'float32');
      if (!inMemory(memory, y)) return reference.compute(ctx);
      const run = kind === 'max' ? kernels.globalPoolMax : kernels.globalPoolAvg;
      run((x.data as Float32Array).byteOffset, (y.data as Float32Array).byteOffset, planes, size);
    },
  });
}

/** The 'wasm-simd' pooling kernels over the reference kernels `referenceOf` returns. */
export function simdPoolKernels(referenceOf: (opType: string) => KernelV1): KernelV1[] {
  return [
    simdPoolKernel('MaxPool', 'max', referenceOf('MaxPool')),
    simdPoolKernel('AveragePool', 'avg', referenceOf('AveragePool')),
    simdGlobalPoolKernel('GlobalMaxPool', 'max', referenceOf('GlobalMaxPool')),
    simdGlobalPoolKernel('GlobalAveragePool', 'avg', referenceOf('GlobalAveragePool')),
  ];
}
