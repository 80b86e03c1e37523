import type { KernelLibraryV1 } from '@tsge/metadef';
import { TSGE_DOMAIN } from '@tsge/metadef';
import { fusedKernels } from '@tsge/kernels-js';
import { attentionTile } from './simd-attention.js';
import { gqaRowsTile } from './simd-group-query-attention.js';
import { rmsNormTile } from './simd-rms-norm.js';
import { transposeTile } from './blocked-transpose.js';
import { convDirectTile } from './conv-direct-tiles.js';
import { convGemmTile } from './conv-gemm-tiles.js';
import { convPointwiseTile } from './conv-pointwise-tiles.js';
import { convTransposeTile } from './conv-transpose-tiles.js';
import { gemmPackedTile, gemmPrepackedTile } from './gemm-packed-tiles.js';
import { gemvColumnsTile } from './gemv-tiles.js';
import { gemvPanelsTile } from './simd-packed-matmul.js';
import { depthwiseTile } from './simd-conv.js';
import { INT_TILES } from './simd-int-conv.js';
import { wasmSimdKernels } from './simd-kernels.js';
import { generatedElementwiseTile } from './generated-elementwise.js';
import { resizeSeparableTile } from './resize-separable.js';
import { resizeNearestTile } from './simd-resize.js';
import { unaryRangeTile } from './simd-elementwise.js';
import { warmCompiledCode } from './warm-code.js';
import { layerNormTile } from './simd-layer-norm.js';
import { applyRotaryTile } from './simd-apply-rotary.js';
import { lrnTile } from './simd-lrn.js';
import { gemmRowsTile } from './simd-matmul.js';
import { matMulNBitsTile } from './simd-matmul-nbits.js';
import { poolPlanesTile } from './simd-pool.js';
import { THREAD_WORKSPACE_BYTES, bindThreadWorkspace } from './thread-workspace.js';
import { adoptCompiledModules, compiledModuleEntries } from './compiled-modules.js';

/** Every tile function the 'wasm-simd' kernels split work into: one explicit list, no registration. */
export const WASM_TILE_FUNCTIONS = [
  convGemmTile,
  convDirectTile,
  convPointwiseTile,
  depthwiseTile,
  convTransposeTile,
  gemmPackedTile,
  gemmPrepackedTile,
  gemmRowsTile,
  gemvColumnsTile,
  gemvPanelsTile,
  poolPlanesTile,
  lrnTile,
  layerNormTile,
  applyRotaryTile,
  transposeTile,
  matMulNBitsTile,
  ...INT_TILES,
  generatedElementwiseTile,
  attentionTile,
  gqaRowsTile,
  rmsNormTile,
  resizeSeparableTile,
  resizeNearestTile,
  unaryRangeTile,
] as const;

function kernels(): KernelLibraryV1['kernels'] {
  const simd = wasmSimdKernels();
  // fused ops with a SIMD kernel of their own are not wrapped around the base kernel again
  const own = new Set(simd.filter((k) => k.domain === TSGE_DOMAIN).map((k) => k.opType));
  return [...simd, ...fusedKernels(simd).filter((k) => !own.has(k.opType))];
}

/**
 * The WebAssembly SIMD kernel library (kernels named 'wasm-simd') for the CPU device: its kernels run
 * on float32 views of the device memory and hand everything else to the reference kernel of
 * @tsge/kernels-js; its conv/GEMM paths stage panels in a 1 MiB per-thread workspace. Workers adopt
 * the calling thread's compiled modules (compiledCode) instead of emitting and compiling them again.
 */
export const wasmKernelLibrary: KernelLibraryV1 = {
  specVersion: 'v1',
  name: '@tsge/kernels-wasm',
  device: 'cpu',
  kernels: kernels(),
  tiles: WASM_TILE_FUNCTIONS,
  workspace: { bytesPerThread: THREAD_WORKSPACE_BYTES, bind: bindThreadWorkspace },
  compiledCode: { share: compiledModuleEntries, adopt: adoptCompiledModules, warm: warmCompiledCode },
};
