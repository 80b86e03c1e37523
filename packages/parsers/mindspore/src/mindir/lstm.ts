import { attr } from '@tsge/metadef';
import type { MsValue, NodeContext } from './context.js';

/**
 * MindSpore's fused LSTM (x [seq, batch, in], h0, c0, w) with w the flat concatenation of
 * w_ih [4H, in], w_hh [4H, H] and, with has_bias, the summed bias [4H]; gates in the order
 * i, f, g, o. ONNX LSTM wants W, R, B per direction with gates i, o, f, c, so the flat input is
 * sliced and its gate blocks reordered in the graph (constant folding finishes the job). One layer,
 * one direction.
 */
export function lstm(ctx: NodeContext): MsValue {
  const hidden = ctx.intAttr('hidden_size', 0);
  const inputSize = ctx.intAttr('input_size', 0);
  if (ctx.intAttr('num_layers', 1) !== 1 || ctx.boolAttr('bidirectional')) ctx.fail('only one layer in one direction is supported');
  if (hidden <= 0 || inputSize <= 0) ctx.fail('hidden_size and input_size must be positive');
  const hasBias = ctx.boolAttr('has_bias');
  const f32 = { dtype: 'float32' as const, shape: [-2] };
  const flat = ctx.op1('Reshape', [ctx.value(3), ctx.int64s([-1], 'flat')], {}, f32);
  const g = 4 * hidden;
  /** Rows [start, start + rows*cols) of the flat weights as [1, 4H, cols] with gates i,o,f,c. */
  const block = (start: number, cols: number, name: string) => {
    const part = ctx.op1('Slice', [flat, ctx.int64s([start], `${name}_start`), ctx.int64s([start + g * cols], `${name}_end`)], {}, f32);
    const matrix = ctx.op1('Reshape', [part, ctx.int64s([4, hidden, cols], `${name}_gates`)], {}, f32);
    const reordered = ctx.op1('Gather', [matrix, ctx.int64s([0, 3, 1, 2], `${name}_order`)], { axis: attr.int(0) }, f32);
    return ctx.op1('Reshape', [reordered, ctx.int64s([1, g, cols], `${name}_shape`)], {}, f32);
  };
  const w = block(0, inputSize, 'w');
  const r = block(g * inputSize, hidden, 'r');
  const inputs = [ctx.value(0), w, r];
  if (hasBias) {
    const b = block(g * (inputSize + hidden), 1, 'b');
    const wb = ctx.op1('Reshape', [b, ctx.int64s([1, g], 'wb_shape')], {}, f32);
    // the bias is already b_ih + b_hh: it goes to Wb, and Rb is zero
    inputs.push(ctx.op1('Concat', [wb, ctx.floats(new Array(g).fill(0), [1, g], 'rb')], { axis: attr.int(1) }, f32));
  } else inputs.push(undefined as never);
  inputs.push(undefined as never, ctx.value(1), ctx.value(2));
  const [seq, batch] = ctx.out(0).shape;
  const [y, yh, yc] = ctx.opN(
    'LSTM',
    inputs,
    [
      { dtype: 'float32', shape: [seq ?? -1, 1, batch ?? -1, hidden] },
      { dtype: 'float32', shape: [1, batch ?? -1, hidden] },
      { dtype: 'float32', shape: [1, batch ?? -1, hidden] },
    ],
    { hidden_size: attr.int(hidden) },
  ) as [never, never, never];
  const out = ctx.op1('Squeeze', [y, ctx.int64s([1], 'dir')]);
  const unsupported: MsValue = { kind: 'attr', value: { none: true } };
  return {
    kind: 'tuple',
    items: [{ kind: 'value', value: out }, { kind: 'value', value: yh }, { kind: 'value', value: yc }, unsupported, unsupported],
  };
}
