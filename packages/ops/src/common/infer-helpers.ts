import type { InferenceContextV1, ValueInfo } from '@tsge/metadef';
import { InferenceError, broadcastShapes, shapeToString } from '@tsge/metadef';

/** Input i, or an InferenceError naming it when it is missing. */
export function requireInput(ctx: InferenceContextV1, index: number): ValueInfo {
  const v = ctx.input(index);
  if (!v) throw new InferenceError(`${ctx.opType} ${ctx.nodeName}: input ${index} is required`);
  return v;
}

/** Output 0 has input 0's dtype and shape (unary elementwise ops). */
export function inferSameAsInput(ctx: InferenceContextV1): void {
  const x = requireInput(ctx, 0);
  ctx.setOutput(0, { dtype: x.dtype, shape: x.shape, ...(x.shapeRange ? { shapeRange: x.shapeRange } : {}) });
}

/** Output 0 is the broadcast of all present inputs, with input 0's dtype (or `dtype`). */
export function inferBroadcast(ctx: InferenceContextV1, dtype?: ValueInfo['dtype']): void {
  const inputs: ValueInfo[] = [];
  for (let i = 0; i < ctx.inputCount; i++) {
    const v = ctx.input(i);
    if (v) inputs.push(v);
  }
  const first = inputs[0];
  if (!first) throw new InferenceError(`${ctx.opType} ${ctx.nodeName}: no inputs`);
  const shape = broadcastShapes(...inputs.map((v) => v.shape));
  if (!shape)
    throw new InferenceError(
      `${ctx.opType} ${ctx.nodeName}: shapes ${inputs.map((v) => shapeToString(v.shape)).join(', ')} do not broadcast`,
    );
  ctx.setOutput(0, { dtype: dtype ?? first.dtype, shape });
}
