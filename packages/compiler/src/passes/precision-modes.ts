import type { Graph, GraphPassV1, KernelRegistry } from '@tsge/metadef';
import { TsgeError } from '@tsge/metadef';
import type { CompileTarget, PrecisionMode } from '../options.js';
import { precisionFp16Pass } from './precision-fp16.js';
import { precisionRaisePass } from './precision-raise.js';
import { type PrecisionScope, loweredNodes, precisionStoragePass } from './precision-storage.js';

/** GE's `--precision_mode` values (and tsge's earlier 'fp32' / 'fp16'): which ops each lowers, to what. */
type ModeSpec = { readonly scope: PrecisionScope; readonly dtype: 'float16' | 'bfloat16' } | 'keep' | 'fp32';
const MODES: ReadonlyMap<PrecisionMode, ModeSpec> = new Map<PrecisionMode, ModeSpec>([
  ['must_keep_origin_dtype', 'keep'],
  ['force_fp32', 'fp32'],
  ['fp32', 'fp32'],
  ['force_fp16', { scope: 'all', dtype: 'float16' }],
  ['fp16', { scope: 'all', dtype: 'float16' }],
  ['allow_fp32_to_fp16', { scope: 'matrix', dtype: 'float16' }],
  ['allow_fp32_to_bf16', { scope: 'matrix', dtype: 'bfloat16' }],
  ['allow_mix_precision', { scope: 'mixed', dtype: 'float16' }],
  ['allow_mix_precision_fp16', { scope: 'mixed', dtype: 'float16' }],
  ['allow_mix_precision_bf16', { scope: 'mixed', dtype: 'bfloat16' }],
]);

export const PRECISION_MODES: readonly PrecisionMode[] = [...MODES.keys()];

/**
 * The passes of a precision mode for a target (validating the mode). On 'wasm-simd' the kernels compute
 * in float32 and read weights stored as float16 or bfloat16 (widened at load): a mode picks which
 * weights. On 'js' the reference kernels compute in float16 too: float16 modes lower the chosen ops
 * whole (GE's semantics exactly); bfloat16 has no compute kernels there and is refused. force_fp32
 * raises ops that compute in float16 or bfloat16 to float32 (their weights stay narrow in WEIGHTS).
 */
export function precisionPasses(
  graph: Graph,
  mode: PrecisionMode | undefined,
  target: CompileTarget,
  kernels: KernelRegistry,
): { readonly beforeOptimize: GraphPassV1[]; readonly afterFusion: GraphPassV1[] } {
  const lowering = lowerings(graph, mode, target, kernels);
  // raising runs before the graph passes, so fusion and folding see float32 ops as in any float32 model
  return mode !== undefined && MODES.get(mode) === 'fp32'
    ? { beforeOptimize: [precisionRaisePass], afterFusion: [] }
    : { beforeOptimize: [], afterFusion: lowering };
}

function lowerings(graph: Graph, mode: PrecisionMode | undefined, target: CompileTarget, kernels: KernelRegistry): GraphPassV1[] {
  if (mode === undefined) return [];
  const spec = MODES.get(mode);
  if (spec === undefined)
    throw TsgeError.of(
      'TSGE-E7002',
      { option: 'precision_mode', value: String(mode), reason: `expected one of ${PRECISION_MODES.join(', ')}` },
      { option: 'precision_mode' },
    );
  if (spec === 'keep') return [];
  if (spec === 'fp32') return [];
  if (target === 'wasm-simd') return [precisionStoragePass(spec.scope, spec.dtype)];
  if (spec.dtype === 'bfloat16')
    throw TsgeError.of('TSGE-E7121', { mode, target, reason: 'the js device has no bfloat16 kernels' }, { option: 'precision_mode' });
  const scope = spec.scope;
  let chosen: Set<unknown> | undefined;
  return [precisionFp16Pass(kernels, (node) => (chosen ??= loweredNodes(graph, scope)).has(node))];
}
