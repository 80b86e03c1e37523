import { type InferenceContextV1, type OpDefinitionV1, InferenceError, TSGE_DOMAIN, attr } from '@tsge/metadef';
import { defineOp, param } from '../define.js';

/**
 * Ops tsge introduces when the compiler fuses an activation into its producer (domain `tsge`):
 * FusedConv = Conv (+ bias) + activation, FusedGemm = Gemm + activation, FusedMatMul = MatMul + a
 * bias over the last axis (optional input 2) + activation. They live here, beside the ops they
 * extend, so every executor that loads @tsge/ops can run a fused model.
 *
 * FusedConv and FusedMatMul may also carry a generated epilogue (automatic fusion): a kernel
 * description (numbers and op codes, metadef's kernel IR) over the output as [N, C, H·W] (Conv) or
 * [1, rows, N] (MatMul) whose input 0 is the op's own value (after its bias and activation) and
 * whose inputs 1.. are the node's inputs from index 3 (`epilogue_inputs`: residuals, per-channel
 * scales, a MatMul bias the epilogue adds itself, …). It is attribute `description` while
 * compiling and `kernel` (its index in the .om's KERNELS) after, as on FusedElementwise.
 */
export const FUSED_CONV = 'FusedConv';
export const FUSED_GEMM = 'FusedGemm';
export const FUSED_MATMUL = 'FusedMatMul';

/** Activations a fused op applies to its result in place (float32/float64 outputs). */
export const FUSABLE_ACTIVATIONS = ['Relu', 'LeakyRelu', 'Sigmoid', 'HardSigmoid', 'HardSwish', 'Tanh', 'Gelu', 'Clip'] as const;
export type FusableActivation = (typeof FUSABLE_ACTIVATIONS)[number];

export const FUSED_BASE_OF: Readonly<Record<string, string>> = { [FUSED_CONV]: 'Conv', [FUSED_GEMM]: 'Gemm', [FUSED_MATMUL]: 'MatMul' };
/** Fused ops that take a bias input of their own (the base op has none). */
export const EXTRA_BIAS = new Set([FUSED_MATMUL]);

const ACTIVATION_ATTRS = [
  { name: 'activation', kind: 'string', required: true },
  { name: 'activation_params', kind: 'floats', default: attr.floats([]) },
] as const;

const EPILOGUE_ATTRS = [
  { name: 'description', kind: 'ints' },
  { name: 'kernel', kind: 'int' },
  { name: 'fused_nodes', kind: 'strings' },
] as const;

/** Fused ops that may carry a generated epilogue, whose inputs start at this index (after B / bias). */
export const EPILOGUE_HOSTS = new Set([FUSED_CONV, FUSED_MATMUL]);
export const EPILOGUE_FIRST_INPUT = 3;

export function fusedDefinition(type: string, base: OpDefinitionV1): OpDefinitionV1 {
  const epilogue = EPILOGUE_HOSTS.has(type);
  const own = EXTRA_BIAS.has(type) ? [...base.inputs, param.optional('bias', 'T')] : base.inputs;
  return defineOp({
    type,
    domain: TSGE_DOMAIN,
    sinceVersion: 1,
    doc: `${base.type} followed by an activation applied in place (attributes: ${base.type}'s plus activation, activation_params${epilogue ? '; optionally a generated epilogue over the inputs after B' : ''}).`,
    inputs: epilogue ? [...own, param.variadic('epilogue_inputs', 'T', 0)] : own,
    outputs: [param.required('Y', 'T')],
    attributes: [...base.attributes, ...ACTIVATION_ATTRS, ...(epilogue ? EPILOGUE_ATTRS : [])],
    typeConstraints: [{ name: 'T', allowed: ['float32', 'float64'] }],
    infer: (ctx: InferenceContextV1) => {
      if (!ctx.attrs.has('activation')) throw new InferenceError(`${type} ${ctx.nodeName}: attribute activation is required`);
      const extra = epilogue ? Math.max(0, ctx.inputCount - EPILOGUE_FIRST_INPUT) : 0;
      if (extra > 0 && !ctx.attrs.has('description') && !ctx.attrs.has('kernel'))
        throw new InferenceError(`${type} ${ctx.nodeName}: ${extra} epilogue inputs but no epilogue description`);
      base.infer(ctx);
    },
  });
}

/** Fused definitions built on the given base definitions. */
export function fusedDefinitions(bases: readonly OpDefinitionV1[]): OpDefinitionV1[] {
  return Object.entries(FUSED_BASE_OF).flatMap(([type, baseType]) => {
    const base = bases.find((d) => d.type === baseType && d.domain !== TSGE_DOMAIN);
    return base ? [fusedDefinition(type, base)] : [];
  });
}
