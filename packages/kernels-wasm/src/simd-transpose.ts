import type { DataType, KernelContextV1, KernelV1 } from '@tsge/metadef';
import { defineKernel } from '@tsge/kernels-js/kernel-support';
import { type TransposeThreads, blockedTranspose } from './blocked-transpose.js';

/** Dtypes stored one whole element per typed-array slot group (not strings, not packed 4-bit). */
export const MOVABLE_DTYPES: readonly DataType[] = [
  'float32',
  'float16',
  'bfloat16',
  'float64',
  'int8',
  'uint8',
  'int16',
  'uint16',
  'int32',
  'uint32',
  'int64',
  'uint64',
  'bool',
  'complex64',
  'complex128',
];

/** The device memory and threads large permutations may split over. */
const threadsOf = (ctx: KernelContextV1): TransposeThreads | undefined =>
  ctx.memory ? { memory: ctx.memory, parallel: ctx.parallel } : undefined;

/** A valid permutation of `rank` axes from the attribute (default: reversed), else undefined. */
function permutationOf(ctx: KernelContextV1, rank: number): number[] | undefined {
  const given = ctx.attrs.has('perm') ? ctx.attrs.ints('perm') : undefined;
  const perm = given ? given.map((p) => (p < 0 ? p + rank : p)) : Array.from({ length: rank }, (_, i) => rank - 1 - i);
  if (perm.length !== rank || new Set(perm).size !== rank || perm.some((p) => !(p >= 0 && p < rank))) return undefined;
  return perm;
}

/**
 * Transpose as row copies or cache-blocked 2-D transposes after merging axes that stay
 * neighbours (see blocked-transpose.ts). Bad permutations and strings go to the reference kernel.
 */
export function simdTransposeKernel(reference: KernelV1): KernelV1 {
  return defineKernel({
    opType: 'Transpose',
    name: 'wasm-simd',
    dtypes: MOVABLE_DTYPES,
    parallel: true,
    compute: (ctx: KernelContextV1) => {
      const x = ctx.tensor(0);
      const perm = x && permutationOf(ctx, x.dims.length);
      if (!x || !perm || Array.isArray(x.data)) return reference.compute(ctx);
      const y = ctx.output(
        0,
        perm.map((p) => x.dims[p] as number),
        x.type,
      );
      if (!blockedTranspose(x.data, y.data, x.dims, perm, threadsOf(ctx))) reference.compute(ctx);
    },
  });
}

/**
 * DepthToSpace (DCR and CRD) and SpaceToDepth: the 6-D reshape-transpose-reshape of the
 * reference kernels, run by the blocked transpose. Shapes the reference rejects go to it.
 */
export function simdDepthSpaceKernels(referenceOf: (opType: string) => KernelV1): KernelV1[] {
  const depthToSpace = referenceOf('DepthToSpace');
  const spaceToDepth = referenceOf('SpaceToDepth');
  return [
    defineKernel({
      opType: 'DepthToSpace',
      name: 'wasm-simd',
      dtypes: MOVABLE_DTYPES,
      parallel: true,
      compute: (ctx: KernelContextV1) => {
        const x = ctx.tensor(0);
        const b = ctx.attrs.int('blocksize');
        if (!x || Array.isArray(x.data) || x.dims.length !== 4 || !(b > 0) || (x.dims[1] as number) % (b * b) !== 0) {
          return depthToSpace.compute(ctx);
        }
        const [n, c, h, w] = x.dims as [number, number, number, number];
        const c2 = c / (b * b);
        const crd = ctx.attrs.string('mode', 'DCR') === 'CRD';
        const y = ctx.output(0, [n, c2, h * b, w * b], x.type);
        const done = crd
          ? blockedTranspose(x.data, y.data, [n, c2, b, b, h, w], [0, 1, 4, 2, 5, 3], threadsOf(ctx))
          : blockedTranspose(x.data, y.data, [n, b, b, c2, h, w], [0, 3, 4, 1, 5, 2], threadsOf(ctx));
        if (!done) depthToSpace.compute(ctx);
      },
    }),
    defineKernel({
      opType: 'SpaceToDepth',
      name: 'wasm-simd',
      dtypes: MOVABLE_DTYPES,
      parallel: true,
      compute: (ctx: KernelContextV1) => {
        const x = ctx.tensor(0);
        const b = ctx.attrs.int('blocksize');
        if (!x || Array.isArray(x.data) || x.dims.length !== 4 || !(b > 0)) return spaceToDepth.compute(ctx);
        const [n, c, h, w] = x.dims as [number, number, number, number];
        if (h % b !== 0 || w % b !== 0) return spaceToDepth.compute(ctx);
        const y = ctx.output(0, [n, c * b * b, h / b, w / b], x.type);
        if (!blockedTranspose(x.data, y.data, [n, c, h / b, b, w / b, b], [0, 3, 5, 1, 2, 4], threadsOf(ctx))) spaceToDepth.compute(ctx);
      },
    }),
  ];
}
