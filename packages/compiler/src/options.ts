import type { Diagnostic, Dim, GraphPassV1, FusionPassV1, KernelRegistry, OpRegistry } from '@tsge/metadef';
import type { MemoryReport, OmWriteInput } from '@tsge/om';

export type CompileTarget = 'wasm-simd' | 'js';

/**
 * GE's precision modes. On 'wasm-simd' kernels compute in float32, so a lowering mode stores the
 * chosen ops' float32 weights as float16 or bfloat16 (half the bytes; widened at load):
 * force_fp16 every float op's, allow_fp32_to_fp16 / allow_fp32_to_bf16 the matrix ops' (Conv,
 * ConvTranspose, Gemm, MatMul), allow_mix_precision(_fp16/_bf16) matrix ops' and those of ops
 * that follow a lowered producer, never normalisations, softmax, reductions or exponentials. On
 * 'js' the float16 modes compute those ops in float16 (bfloat16 modes: TSGE-E7121).
 * must_keep_origin_dtype changes nothing; force_fp32 raises ops that compute in float16 or
 * bfloat16 to float32 (SIMD kernels; their weights stay narrow in WEIGHTS, Casts keep the I/O
 * types). 'fp32' / 'fp16' are force_fp32 / force_fp16.
 */
export type PrecisionMode =
  | 'force_fp32'
  | 'force_fp16'
  | 'allow_fp32_to_fp16'
  | 'must_keep_origin_dtype'
  | 'allow_mix_precision'
  | 'allow_mix_precision_fp16'
  | 'allow_fp32_to_bf16'
  | 'allow_mix_precision_bf16'
  | 'fp32'
  | 'fp16';

export interface CompileProgress {
  readonly stage: string;
  readonly done: number;
  readonly total: number;
}

export interface CompileOptions {
  /** 'wasm-simd' (default) or 'js'. */
  target?: CompileTarget;
  /** O0 (correctness only) … O3 (adds tsge-domain fused ops: activations in their producers, as onnxruntime fuses by default). Default 3. */
  optLevel?: 0 | 1 | 2 | 3;
  /** Pass name → false switches a pass off (true forces it on regardless of level). */
  optimizationSwitch?: Record<string, boolean>;
  /** Input name → shape overriding the model's (`--input_shape`). */
  inputShapes?: Record<string, Dim[]>;
  /** One static plan per batch size for the first dim of symbolic inputs (`--dynamic_batch_size`). */
  dynamicBatchSizes?: number[];
  /** One static plan per row; a row lists the values of the symbolic dims in input order (`--dynamic_dims`). */
  dynamicDims?: number[][];
  /** Graph outputs to keep: `node` or `node:index` (`--out_nodes`). */
  outNodes?: string[];
  /**
   * GE's `--precision_mode` (see `PrecisionMode`); unset keeps every op's dtype
   * (must_keep_origin_dtype).
   */
  precisionMode?: PrecisionMode;
  disableReuseMemory?: boolean;
  enableSingleStream?: boolean;
  /** Maximum number of streams (default 1: heavy kernels already split into tiles across threads; 2 lets independent branches overlap). */
  streamLimit?: number;
  /** Pass name or 'all': write the graph after it to `dumpDir` (.air, .json, .dot). */
  dumpGraphAfter?: string | 'all';
  dumpDir?: string;
  customPasses?: GraphPassV1[];
  customFusions?: FusionPassV1[];
  onProgress?: (event: CompileProgress) => void;
  /** Op definitions (default: `createDefaultOpRegistry()`); tsge fused ops are added to it. */
  ops?: OpRegistry;
  /** Kernels (default: `createDefaultKernelRegistry()`); tsge fused kernels are added to it. */
  kernels?: KernelRegistry;
  /** Run metadef's verifier after every pass; a violation fails the compile naming the pass (for tests). */
  verify?: boolean;
  /** Model name written in the .om header (default: the graph name). */
  modelName?: string;
  /**
   * Threads the kernel plans recorded in the `.om` split work for (default 1); an executor with
   * another thread count splits the recorded implementation's work again at bind time.
   */
  threads?: number;
}

export interface PassTiming {
  readonly name: string;
  readonly stage: string;
  readonly milliseconds: number;
  readonly changed: boolean;
}

export interface CompileSummary {
  readonly nodesBefore: number;
  readonly nodesAfter: number;
  /** Fusion name → times applied; also other pass counters (`folded`, `cse`, …). */
  readonly fusions: Readonly<Record<string, number>>;
  readonly counters: Readonly<Record<string, number>>;
  readonly passes: readonly PassTiming[];
  readonly streams: number;
  readonly events: number;
  readonly memory: MemoryReport;
  readonly weightsBytes: number;
  readonly kernelsBytes: number;
  readonly omBytes: number;
  /** Milliseconds per stage: prepare, optimize, place, build, serialize. */
  readonly stageMilliseconds: Readonly<Record<string, number>>;
  readonly gears: number;
  readonly dynamic: boolean;
}

export interface CompileResult {
  readonly om: Uint8Array;
  readonly model: OmWriteInput;
  readonly summary: CompileSummary;
  readonly diagnostics: readonly Diagnostic[];
}
