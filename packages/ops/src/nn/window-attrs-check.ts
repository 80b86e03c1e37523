import type { InferenceContextV1 } from '@tsge/metadef';
import { InferenceError, windowAttrsProblem } from '@tsge/metadef';

/**
 * Applies metadef's window-op attribute rules (the ones the `.om` reader applies to task
 * attributes) at shape inference, naming the node: kernel_shape against the weights, strides and
 * dilations ≥ 1, pads ≥ 0, group against the channels.
 */
export function checkWindowAttrs(ctx: InferenceContextV1): void {
  const inputs = Array.from({ length: ctx.inputCount }, (_, i) => ctx.input(i)?.shape);
  const problem = windowAttrsProblem(ctx.opType, ctx.attrs, { x: inputs[0], inputs });
  if (problem) throw new InferenceError(`${ctx.opType} ${ctx.nodeName}: ${problem}`);
}
