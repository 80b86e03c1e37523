import type { LinearMemory } from '@tsge/metadef';
import { sharedCompiledModule } from './compiled-modules.js';
import { assembleModule, Code, type FunctionDef, V128 } from './emitter.js';
import { depthwiseFunction } from './depthwise-module.js';
import { depthwiseFastFunctions } from './depthwise-fast-module.js';
import { type ElementwiseExports, elementwiseFunctions } from './elementwise-module.js';
import { gemmFunction } from './gemm-module.js';
import { gemmTileFunction } from './gemm-tile-module.js';
import { im2colFunction } from './im2col-module.js';
import { type GemvColumnsExports, gemvColumnsFunction } from './gemv-columns-module.js';
import { type GemvPanelsExports, gemvPanelsFunction } from './gemv-panels-module.js';
import { type GemvExports, dotRowsFunction } from './gemv-module.js';
import { type PoolExports, poolFunctions } from './pool-module.js';
import { paddedPoolFunctions } from './pool-padded-module.js';
import { type ResizeExports, doubleColumnsFunction } from './resize-module.js';
import { type SoftmaxExports, softmaxRowsFunction } from './softmax-module.js';

/** The exports of tsge's hand-written SIMD kernel module. */
/**
 * `depthwise{K}s{S}(x, w, y, bias, H, W, OH, OW, pt, pl, owLo, owHi, sh, slack)`, its split and
 * fewer-rows variants (see depthwise-fast-module.ts) and their tile drivers `depthwise{K}s{S}planes`
 * (depthwise-planes-module.ts).
 */
type DepthwiseFast = (...args: number[]) => void;

export interface SimdKernelExports
  extends ElementwiseExports,
    PoolExports,
    GemvExports,
    GemvColumnsExports,
    GemvPanelsExports,
    ResizeExports,
    SoftmaxExports {
  readonly [
    specialised:
      | `depthwise${number}s${number}`
      | `depthwise${number}s2x`
      | `depthwise${number}r${number}s${number}`
      | `depthwise${number}r${number}s2x`
      | `depthwise${number}s${number}planes`
  ]: DepthwiseFast;
  /** Copies a plane into a zero-padded one (see depthwise-fast-module.ts). */
  padPlane(x: number, dst: number, H: number, W: number, pt: number, pl: number, Hp: number, Wp: number): void;
  /** Zero-pads a plane and splits it into even and odd columns (see depthwise-fast-module.ts). */
  padSplit(x: number, dst: number, odd: number, H: number, W: number, pt: number, pl: number, Hp: number, Wh: number): void;
  gemm(M: number, N: number, K: number, A: number, lda: number, B: number, ldb: number, C: number, ldc: number, accumulate: number): void;
  /** C (+)= A·B with B in packed 8-column panels, bias and clamp epilogue (see gemm-tile-module.ts). */
  gemmTile(
    M: number,
    N: number,
    K: number,
    A: number,
    lda: number,
    B: number,
    bStride: number,
    C: number,
    ldc: number,
    flags: number,
    bias: number,
    lo: number,
    hi: number,
    tmp: number,
  ): void;
  /** gemmTile with B read in place through a table of row offsets (see gemm-tile-module.ts). */
  gemmIndirect(
    M: number,
    N: number,
    K: number,
    A: number,
    lda: number,
    B: number,
    table: number,
    C: number,
    ldc: number,
    flags: number,
    bias: number,
    lo: number,
    hi: number,
    tmp: number,
  ): void;
  /** Packed im2col panels of a 2-D convolution (see im2col-module.ts). */
  im2colPanels(...args: number[]): void;
  depthwise(
    x: number,
    w: number,
    y: number,
    bias: number,
    H: number,
    W: number,
    OH: number,
    OW: number,
    KH: number,
    KW: number,
    sh: number,
    sw: number,
    pt: number,
    pl: number,
    dh: number,
    dw: number,
    owLo: number,
    owHi: number,
  ): void;
}

interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: Record<string, Record<string, unknown>>) => { exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

let simdSupport: boolean | undefined;
let fmaSupport: boolean | undefined;

function probe(fn: FunctionDef): boolean {
  if (!wasm) return false;
  try {
    return wasm.validate(assembleModule([fn], { shared: false }));
  } catch {
    return false;
  }
}

/** Whether WebAssembly SIMD128 works here. */
export function hasWasmSimd(): boolean {
  if (simdSupport === undefined) {
    const code = new Code(0);
    code.f32(1).f32x4Splat().f32x4ExtractLane(0);
    code.bytes.push(0x1a); // drop
    simdSupport = probe({ name: 'probe', params: [], results: [], code });
  }
  return simdSupport;
}

/** Whether relaxed SIMD (f32x4.relaxed_madd) works here (Node ≥ 22, current browsers). */
export function hasRelaxedSimd(): boolean {
  if (fmaSupport === undefined) {
    const code = new Code(0);
    const v = code.local(V128);
    code.get(v).get(v).get(v).f32x4RelaxedMadd().set(v);
    fmaSupport = hasWasmSimd() && probe({ name: 'probe', params: [], results: [], code });
  }
  return fmaSupport;
}

const instances = new WeakMap<object, SimdKernelExports>();

/**
 * The SIMD kernels instantiated over `memory` (cached per memory). Undefined when SIMD is absent.
 */
export function simdKernels(memory: LinearMemory): SimdKernelExports | undefined {
  if (!wasm || !hasWasmSimd()) return undefined;
  const cached = instances.get(memory);
  if (cached) return cached;
  const shared = typeof SharedArrayBuffer !== 'undefined' && memory.buffer instanceof SharedArrayBuffer;
  const instance = new wasm.Instance(simdModule(shared), { env: { memory } });
  const exports = instance.exports as unknown as SimdKernelExports;
  instances.set(memory, exports);
  return exports;
}

/** The main kernel module for shared or unshared memory, compiled once per thread (or adopted). */
export function simdModule(shared: boolean): object {
  return sharedCompiledModule(`simd:${shared ? 's' : 'u'}`, () => {
    const head = [
      gemmFunction(hasRelaxedSimd()),
      gemmTileFunction(hasRelaxedSimd()),
      gemmTileFunction(hasRelaxedSimd(), true),
      im2colFunction(),
      depthwiseFunction(hasRelaxedSimd()),
    ];
    return assembleModule(
      [
        ...head,
        // (their tile drivers call them by function index)
        ...depthwiseFastFunctions(hasRelaxedSimd(), head.length),
        ...elementwiseFunctions(),
        ...poolFunctions(),
        ...paddedPoolFunctions(),
        dotRowsFunction(),
        gemvColumnsFunction(),
        gemvPanelsFunction(hasRelaxedSimd()),
        doubleColumnsFunction(),
        softmaxRowsFunction(),
      ],
      {
        shared,
      },
    );
  });
}
