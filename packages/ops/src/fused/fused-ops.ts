import type { HostTensor, InferenceContextV1, KernelContextV1, KernelV1, OpDefinitionV1 } from '@tsge/metadef';
import { InferenceError, TSGE_DOMAIN, TsgeError, attr } from '@tsge/metadef';
import { defineKernel, defineOp, param } from '../define.js';
import { applyActivation } from './activation.js';

/**
 * Ops tsge introduces when the compiler fuses an activation into its producer (domain `tsge`):
 * FusedConv = Conv (+ bias) + activation, FusedGemm = Gemm + activation, FusedMatMul = MatMul + a
 * bias over the last axis (optional input 2) + activation. They live here, beside the ops they
 * extend, so every executor that loads @tsge/ops can run a fused model.
 */
export const FUSED_CONV = 'FusedConv';
export const FUSED_GEMM = 'FusedGemm';
export const FUSED_MATMUL = 'FusedMatMul';

export const FUSED_BASE_OF: Readonly<Record<string, string>> = { [FUSED_CONV]: 'Conv', [FUSED_GEMM]: 'Gemm', [FUSED_MATMUL]: 'MatMul' };
/** Fused ops that take a bias input of their own (the base op has none). */
const EXTRA_BIAS = new Set([FUSED_MATMUL]);

const ACTIVATION_ATTRS = [
  { name: 'activation', kind: 'string', required: true },
  { name: 'activation_params', kind: 'floats', default: attr.floats([]) },
] as const;

export function fusedDefinition(type: string, base: OpDefinitionV1): OpDefinitionV1 {
  return defineOp({
    type,
    domain: TSGE_DOMAIN,
    sinceVersion: 1,
    doc: `${base.type} followed by an activation applied in place (attributes: ${base.type}'s plus activation, activation_params).`,
    inputs: EXTRA_BIAS.has(type) ? [...base.inputs, param.optional('bias', 'T')] : base.inputs,
    outputs: [param.required('Y', 'T')],
    attributes: [...base.attributes, ...ACTIVATION_ATTRS],
    typeConstraints: [{ name: 'T', allowed: ['float32', 'float64'] }],
    infer: (ctx: InferenceContextV1) => {
      if (!ctx.attrs.has('activation')) throw new InferenceError(`${type} ${ctx.nodeName}: attribute activation is required`);
      base.infer(ctx);
    },
  });
}

/** The base kernel runs into the planned output, then the bias and activation run over it in place. */
export function fusedKernel(type: string, base: KernelV1): KernelV1 {
  return defineKernel({
    opType: type,
    domain: TSGE_DOMAIN,
    name: base.name,
    dtypes: ['float32', 'float64'],
    ...(base.parallel !== undefined ? { parallel: base.parallel } : {}),
    compute(ctx: KernelContextV1) {
      const inner = captureOutput(ctx, base.opType, EXTRA_BIAS.has(type) ? Math.min(ctx.inputCount, 2) : ctx.inputCount);
      base.compute(inner.context);
      const result = inner.result();
      if (!result) throw TsgeError.of('TSGE-E4003', { reason: `${type} ${ctx.nodeName}: ${base.opType} produced no output` });
      const bias = EXTRA_BIAS.has(type) ? ctx.tensor(2) : undefined;
      if (bias) addBiasOverLastAxis(result.data as Float32Array, bias.data as Float32Array, ctx.nodeName);
      applyActivation(result.data as Float32Array, ctx.attrs.string('activation'), ctx.attrs.floats('activation_params', []));
    },
  });
}

/** A view of `ctx` as the base op (first `inputCount` inputs) that remembers the output it hands out. */
export function captureOutput(
  ctx: KernelContextV1,
  opType: string,
  inputCount: number,
): { readonly context: KernelContextV1; result(): HostTensor | undefined; reset(): void } {
  let result: HostTensor | undefined;
  const context: KernelContextV1 = {
    nodeName: ctx.nodeName,
    opType,
    attrs: ctx.attrs,
    inputCount,
    outputCount: 1,
    opsetVersion: ctx.opsetVersion,
    ...(ctx.memory ? { memory: ctx.memory } : {}),
    ...(ctx.parallel ? { parallel: ctx.parallel } : {}),
    input: (i) => ctx.input(i),
    tensor: (i) => ctx.tensor(i),
    output: (i, dims, dtype) => {
      result = ctx.output(i, dims, dtype);
      return result;
    },
    setOutput: (i, value) => ctx.setOutput(i, value),
    runSubgraph: (name, inputs) => ctx.runSubgraph(name, inputs),
  };
  return {
    context,
    result: () => result,
    reset: () => {
      result = undefined;
    },
  };
}

function addBiasOverLastAxis(out: Float32Array | Float64Array, bias: Float32Array | Float64Array, node: string): void {
  const n = bias.length;
  if (n === 0 || out.length % n !== 0)
    throw TsgeError.of('TSGE-E4003', { reason: `${node}: bias of ${n} does not divide the output of ${out.length}` });
  for (let i = 0; i < out.length; i += n) for (let j = 0; j < n; j++) out[i + j] = (out[i + j] as number) + (bias[j] as number);
}

/** Fused definitions built on the given base definitions. */
export function fusedDefinitions(bases: readonly OpDefinitionV1[]): OpDefinitionV1[] {
  return Object.entries(FUSED_BASE_OF).flatMap(([type, baseType]) => {
    const base = bases.find((d) => d.type === baseType && d.domain !== TSGE_DOMAIN);
    return base ? [fusedDefinition(type, base)] : [];
  });
}

/** One fused kernel per base kernel implementation (reference and, where present, wasm-simd). */
export function fusedKernels(bases: readonly KernelV1[]): KernelV1[] {
  return Object.entries(FUSED_BASE_OF).flatMap(([type, baseType]) =>
    bases.filter((k) => k.opType === baseType && k.domain !== TSGE_DOMAIN).map((k) => fusedKernel(type, k)),
  );
}
