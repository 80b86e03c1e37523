// ai.onnx.preview.training optimizers: Adagrad, Adam and Momentum. Each takes a learning rate R,
// a step count T and groups of equally long tensor lists (X, G, state...), and returns new lists.
import { type HostTensor, type KernelContextV1, readNumber } from '@tsge/metadef';
import { kernelError, requireTensor } from '../common/tensor-infer.js';
import { defineKernel } from '../define.js';
import { TRAINING_DOMAIN } from '@tsge/ops/kernel-support';

/** Input lists after R and T, checked to be equally shaped. */
function lists(ctx: KernelContextV1, groups: number): HostTensor[][] {
  const n = (ctx.inputCount - 2) / groups;
  if (!Number.isInteger(n) || n < 1) throw kernelError(ctx, `${ctx.inputCount - 2} tensors do not form ${groups} lists`);
  return Array.from({ length: groups }, (_, g) => Array.from({ length: n }, (_, i) => requireTensor(ctx, 2 + g * n + i)));
}

/** Writes each new list element through `step(j, out)` filling one Float64 value per output list. */
function update(ctx: KernelContextV1, inputs: HostTensor[][], outCount: number, step: (values: number[], out: number[]) => void): void {
  const n = (inputs[0] as HostTensor[]).length;
  for (let i = 0; i < n; i++) {
    const x = (inputs[0] as HostTensor[])[i] as HostTensor;
    const outs = Array.from({ length: outCount }, (_, g) => ctx.output(g * n + i, x.dims, x.type).data as Float64Array);
    const count = x.data.length;
    const values = new Array<number>(inputs.length).fill(0);
    const out = new Array<number>(outCount).fill(0);
    for (let e = 0; e < count; e++) {
      for (let g = 0; g < inputs.length; g++) values[g] = ((inputs[g] as HostTensor[])[i] as HostTensor).data[e] as number;
      step(values, out);
      for (let g = 0; g < outCount; g++) (outs[g] as Float64Array)[e] = out[g] as number;
    }
  }
}

const scalars = (ctx: KernelContextV1): [number, number] => [readNumber(requireTensor(ctx, 0), 0), readNumber(requireTensor(ctx, 1), 0)];

export const adagradKernel = defineKernel({
  opType: 'Adagrad',
  domain: TRAINING_DOMAIN,
  compute(ctx) {
    const [rate, t] = scalars(ctx);
    const decay = ctx.attrs.float('decay_factor', 0);
    const epsilon = ctx.attrs.float('epsilon', 1e-6);
    const norm = ctx.attrs.float('norm_coefficient', 0);
    const r = rate / (1 + t * decay);
    update(ctx, lists(ctx, 3), 2, ([x = 0, g = 0, h = 0], out) => {
      const grad = norm * x + g;
      const hNew = h + grad * grad;
      out[0] = x - (r * grad) / (Math.sqrt(hNew) + epsilon);
      out[1] = hNew;
    });
  },
});

export const adamKernel = defineKernel({
  opType: 'Adam',
  domain: TRAINING_DOMAIN,
  compute(ctx) {
    const [rate, t] = scalars(ctx);
    const alpha = ctx.attrs.float('alpha', 0.9);
    const beta = ctx.attrs.float('beta', 0.999);
    const epsilon = ctx.attrs.float('epsilon', 1e-6);
    const norm = ctx.attrs.float('norm_coefficient', 0);
    const normPost = ctx.attrs.float('norm_coefficient_post', 0);
    const r = t > 0 ? (rate * Math.sqrt(1 - beta ** t)) / (1 - alpha ** t) : rate;
    update(ctx, lists(ctx, 4), 3, ([x = 0, g = 0, v = 0, h = 0], out) => {
      const grad = norm * x + g;
      const vNew = alpha * v + (1 - alpha) * grad;
      const hNew = beta * h + (1 - beta) * grad * grad;
      out[0] = (1 - normPost) * (x - (r * vNew) / (Math.sqrt(hNew) + epsilon));
      out[1] = vNew;
      out[2] = hNew;
    });
  },
});

export const momentumKernel = defineKernel({
  opType: 'Momentum',
  domain: TRAINING_DOMAIN,
  compute(ctx) {
    const [rate, t] = scalars(ctx);
    const alpha = ctx.attrs.float('alpha');
    const beta = t > 0 ? ctx.attrs.float('beta') : 1;
    const norm = ctx.attrs.float('norm_coefficient');
    const mode = ctx.attrs.string('mode');
    if (mode !== 'standard' && mode !== 'nesterov') throw kernelError(ctx, `unknown mode '${mode}'`);
    const nesterov = mode === 'nesterov';
    update(ctx, lists(ctx, 3), 2, ([x = 0, g = 0, v = 0], out) => {
      const grad = norm * x + g;
      const vNew = alpha * v + beta * grad;
      out[0] = nesterov ? x - rate * (grad + alpha * vNew) : x - rate * vNew;
      out[1] = vNew;
    });
  },
});
export const trainingKernels = [adagradKernel, adamKernel, momentumKernel];
