import type { LinearMemory } from '@tsge/metadef';
import { WORKSPACE_HEADER } from './conv-gemm-tiles.js';
import { GEMM_ACCUMULATE } from './gemm-tile-module.js';
import { simdKernels } from './kernel-modules.js';
import { threadWorkspace } from './thread-workspace.js';
import { tileEpilogue } from './tile-epilogue.js';
import { type NumberTuple, threadPieces, tileFunction } from './tiles.js';
import { float32Of } from './memory-views.js';

/** K rows per packed block: a KC×8 panel of B (8 KiB) stays in L1. */
const KC = 256;
/** Rows of A per GEMM call. */
const MC = 128;
/** Columns of B packed at a time (a KC × 512 block, 512 KiB, stays in L2). */
const NC = 512;
/** Columns from which a block of A is copied to contiguous rows before gemmTile re-reads it per panel. */
const PACK_A_MIN_COLS = 64;
/** Workspace bytes for one contiguous MC×KC block of A. */
const A_BLOCK_BYTES = MC * KC * 4;
/** Below this many multiply-adds a GEMM is one tile (~25 µs of one thread). */
const MIN_SPLIT_WORK = 1 << 19;
/** Multiply-adds a thread takes per tile before the split adds a round of tiles (~200 µs). */
const TILE_WORK = 1 << 22;

export const GEMM_PACKED = 'simd.gemmPacked';

/**
 * Whether C = A·B takes the packed path: enough rows of A to amortise packing B (64 or more), and a
 * thread workspace. Fewer rows stay on the row-major kernel, which reads B in place.
 */
export function usePackedGemm(memory: LinearMemory, m: number, n: number, k: number): boolean {
  return packedGemmFits(m, n, k, threadWorkspace(memory)?.bytes);
}

/** `usePackedGemm` for a thread workspace of `workspaceBytes` (undefined: none). */
export function packedGemmFits(m: number, n: number, k: number, workspaceBytes: number | undefined): boolean {
  return workspaceBytes !== undefined && m >= 64 && n >= 16 && k >= 16 && WORKSPACE_HEADER + A_BLOCK_BYTES + KC * 8 * 32 <= workspaceBytes;
}

/**
 * The blocks [m0, m1, n0, n1] of C[m×n] = A[m×k]·B[k×n] the packed GEMM splits into: by columns
 * and, for few columns, rows (m0 a multiple of 4, n0 of 8).
 */
export function packedGemmRanges(m: number, n: number, k: number, threads: number): number[][] {
  // rows split once per thread (each streams its own part of A), columns split for the rest (each
  // tile packs only its columns of B): the traffic of both stays close to one pass
  const pieces = threadPieces(m * n * k, threads, MIN_SPLIT_WORK, TILE_WORK);
  const mPieces = Math.max(1, Math.min(threads, pieces, Math.floor(m / 64)));
  const nPieces = Math.max(1, Math.min(Math.ceil(pieces / mPieces), Math.ceil(n / 64)));
  const mSize = Math.ceil(m / mPieces / 4) * 4;
  const nSize = Math.ceil(n / nPieces / 8) * 8;
  const ranges: number[][] = [];
  for (let m0 = 0; m0 < m; m0 += mSize)
    for (let n0 = 0; n0 < n; n0 += nSize) ranges.push([m0, Math.min(m, m0 + mSize), n0, Math.min(n, n0 + nSize)]);
  return ranges;
}

/** Arguments of `simd.gemmPacked` / `simd.gemmPrepacked` for blocks [m0, m1, n0, n1] (byte addresses, row strides in elements). */
export function gemmTileArgs(
  ranges: readonly (readonly number[])[],
  k: number,
  a: { byte: number; ld: number },
  b: { byte: number; ld: number },
  c: { byte: number; ld: number },
): number[][] {
  return ranges.map((r) => [a.byte, a.ld, b.byte, b.ld, c.byte, c.ld, k, ...r]);
}

/** Tiles of C[m×n] = A[m×k]·B[k×n]: `packedGemmRanges` as arguments of `simd.gemmPacked`. */
export function packedGemmTiles(
  m: number,
  n: number,
  k: number,
  a: { byte: number; ld: number },
  b: { byte: number; ld: number },
  c: { byte: number; ld: number },
  threads: number,
): number[][] {
  return gemmTileArgs(packedGemmRanges(m, n, k, threads), k, a, b, c);
}

/**
 * Tile: rows [m0, m1) × columns [n0, n1) of C, Goto-style: a KC×NC block of B is packed into 8-column
 * panels in this thread's workspace (the im2col kernel of a 1×1 convolution over B's rows does
 * exactly that), then every MC×KC block of A streams past it through `gemmTile`. With many columns
 * the A block is first copied to contiguous rows in the workspace: read in place with a row stride
 * of a power of two (lda 1024: 4 KiB), its rows fall on the same cache sets and the block thrashes
 * L2 depending on which physical pages it got, which made 1024³ swing between ~45% and ~80% of peak
 * from one process to the next.
 */
export const gemmPackedTile = tileFunction(GEMM_PACKED, (memory, t) => {
  const [a, lda, b, ldb, c, ldc, K, m0, m1, n0, n1] = t as number[] as NumberTuple<11>;
  const { kernels, workspace } = gemmResources(memory, GEMM_PACKED);
  const panels = workspace.offset + WORKSPACE_HEADER + A_BLOCK_BYTES;
  const nc = Math.min(NC, Math.floor((workspace.bytes - WORKSPACE_HEADER - A_BLOCK_BYTES) / (KC * 32)) * 8);
  blockedGemm(memory, kernels, workspace.offset, { a, lda, c, ldc, K, m0, m1, n0, n1 }, nc, (nn, cols, pc, kc) => {
    // rows pc..pc+kc of B as the channels of a 1×1 convolution over one row of ldb positions
    kernels.im2colPanels(b + pc * ldb * 4, panels, kc, 1, ldb, ldb, 1, 1, 1, 1, 1, 1, 0, 0, nn, cols, kc, workspace.offset + 128);
    return [panels, kc * 32];
  });
});

export const GEMM_PREPACKED = 'simd.gemmPrepacked';

/**
 * Tile: rows [m0, m1) × columns [n0, n1) (n0 a multiple of 8) of C = A·B with B already packed in
 * 8-column panels of all K rows (`panelBytes` apart; tsge::PackedMatMul's constant B): the blocks of
 * `simd.gemmPacked` without the packing, each K block of a panel being an offset into it.
 */
export const gemmPrepackedTile = tileFunction(GEMM_PREPACKED, (memory, t) => {
  const [a, lda, b, panelBytes, c, ldc, K, m0, m1, n0, n1] = t as number[] as NumberTuple<11>;
  const { kernels, workspace } = gemmResources(memory, GEMM_PREPACKED);
  const g = { a, lda, c, ldc, K, m0, m1, n0, n1 };
  // a generated epilogue (PackedMatMul's, from argument 11) over the tile's block once it is done
  const epilogue = tileEpilogue(memory, t, 11);
  if (!aliasedPanels(panelBytes)) {
    // NC columns at a time still: a KC × NC block of panels (512 KiB) stays in L2 for every block of A
    blockedGemm(memory, kernels, workspace.offset, g, NC, (nn, _cols, pc) => [b + (nn / 8) * panelBytes + pc * 32, panelBytes]);
    epilogue?.run(0, m0, m1, n0, n1);
    return;
  }
  // panels a power-of-two-ish stride apart (K a multiple of 512) fall on a few cache sets and
  // evict each other: a block's panels are copied side by side into the workspace first
  const all = float32Of(memory);
  const panels = workspace.offset + WORKSPACE_HEADER + A_BLOCK_BYTES;
  const nc = Math.min(NC, Math.floor((workspace.bytes - WORKSPACE_HEADER - A_BLOCK_BYTES) / (KC * 32)) * 8);
  blockedGemm(memory, kernels, workspace.offset, g, nc, (nn, cols, pc, kc) => {
    for (let q = 0; q < Math.ceil(cols / 8); q++) {
      const from = (b + (nn / 8 + q) * panelBytes + pc * 32) / 4;
      all.copyWithin(panels / 4 + q * kc * 8, from, from + kc * 8);
    }
    return [panels, kc * 32];
  });
  epilogue?.run(0, m0, m1, n0, n1);
});

/**
 * Whether panels `panelBytes` apart start on fewer than 4 places of a 64 KiB cache-set period, so
 * the 64 panels of a KC × NC block would share too few L2 sets.
 */
function aliasedPanels(panelBytes: number): boolean {
  let x = panelBytes;
  let y = 65536;
  while (y !== 0) [x, y] = [y, x % y];
  return 65536 / x < 4;
}

function gemmResources(memory: LinearMemory, name: string) {
  const kernels = simdKernels(memory);
  const workspace = threadWorkspace(memory);
  if (!kernels || !workspace) throw new Error(`${name} needs WebAssembly SIMD and a thread workspace`);
  return { kernels, workspace };
}

/**
 * The Goto-style blocks of one tile: for each `nc`-column block and KC block of K, `panelsOf` gives
 * the 8-column panels of that block of B (address and panel stride), and every MC×KC block of A
 * streams past them through `gemmTile`.
 */
function blockedGemm(
  memory: LinearMemory,
  kernels: NonNullable<ReturnType<typeof simdKernels>>,
  workspace: number,
  g: { a: number; lda: number; c: number; ldc: number; K: number; m0: number; m1: number; n0: number; n1: number },
  nc: number,
  panelsOf: (nn: number, cols: number, pc: number, kc: number) => [number, number],
): void {
  const { a, lda, c, ldc, K, m0, m1, n0, n1 } = g;
  const tmp = workspace;
  const aBlock = workspace + WORKSPACE_HEADER;
  const all = float32Of(memory);
  for (let nn = n0; nn < n1; nn += nc) {
    const cols = Math.min(nc, n1 - nn);
    for (let pc = 0; pc < K; pc += KC) {
      const kc = Math.min(KC, K - pc);
      const [panels, stride] = panelsOf(nn, cols, pc, kc);
      const flags = pc > 0 ? GEMM_ACCUMULATE : 0;
      for (let mc = m0; mc < m1; mc += MC) {
        const rows = Math.min(MC, m1 - mc);
        const at = a + (mc * lda + pc) * 4;
        if (cols >= PACK_A_MIN_COLS) {
          for (let r = 0; r < rows; r++) all.copyWithin(aBlock / 4 + r * kc, at / 4 + r * lda, at / 4 + r * lda + kc);
          kernels.gemmTile(rows, cols, kc, aBlock, kc, panels, stride, c + (mc * ldc + nn) * 4, ldc, flags, 0, 0, 0, tmp);
        } else kernels.gemmTile(rows, cols, kc, at, lda, panels, stride, c + (mc * ldc + nn) * 4, ldc, flags, 0, 0, 0, tmp);
      }
    }
  }
}
