import { type HostTensor, type KernelContextV1, type KernelV1, TSGE_DOMAIN, TsgeError } from '@tsge/metadef';
import { defineKernel } from '../define.js';
import { applyActivation } from './activation.js';
import { applyEpilogue } from './epilogue.js';
import { EXTRA_BIAS, FUSED_BASE_OF } from '@tsge/ops/kernel-support';

/** The base kernel runs into the planned output, then the bias and activation run over it in place. */
export function fusedKernel(type: string, base: KernelV1): KernelV1 {
  return defineKernel({
    opType: type,
    domain: TSGE_DOMAIN,
    name: base.name,
    dtypes: ['float32', 'float64'],
    ...(base.parallel !== undefined ? { parallel: base.parallel } : {}),
    compute(ctx: KernelContextV1) {
      // the base op's own inputs: a FusedMatMul's bias and a FusedConv's epilogue inputs come after them
      const inner = captureOutput(ctx, base.opType, Math.min(ctx.inputCount, EXTRA_BIAS.has(type) ? 2 : 3));
      base.compute(inner.context);
      const result = inner.result();
      if (!result) throw TsgeError.of('TSGE-E4003', { reason: `${type} ${ctx.nodeName}: ${base.opType} produced no output` });
      const bias = EXTRA_BIAS.has(type) ? ctx.tensor(2) : undefined;
      if (bias) addBiasOverLastAxis(result.data as Float32Array, bias.data as Float32Array, ctx.nodeName);
      applyActivation(result.data as Float32Array, ctx.attrs.string('activation'), ctx.attrs.floats('activation_params', []));
      // `kernel` without `description`: a call the executor did not give its KERNELS entry (a coded error)
      if (ctx.attrs.has('description') || ctx.attrs.has('kernel')) {
        if (result.type !== 'float32')
          throw TsgeError.of('TSGE-E7103', {
            node: ctx.nodeName,
            kernel: ctx.nodeName,
            reason: `an epilogue runs on float32, not ${result.type}`,
          });
        applyEpilogue(ctx, result.data as Float32Array, result.dims);
      }
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

/** One fused kernel per base kernel implementation (reference and, where present, wasm-simd). */
export function fusedKernels(bases: readonly KernelV1[]): KernelV1[] {
  return Object.entries(FUSED_BASE_OF).flatMap(([type, baseType]) =>
    bases.filter((k) => k.opType === baseType && k.domain !== TSGE_DOMAIN).map((k) => fusedKernel(type, k)),
  );
}
