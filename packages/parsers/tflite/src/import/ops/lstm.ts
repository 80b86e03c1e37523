import { type Value, attr } from '@tsge/metadef';
import type { TfliteTensor } from '../../schema/model.js';
import type { ImportContext } from '../context.js';
import { ACTIVATION, options } from '../helpers.js';
import { ImportProblem, badOperator } from '../problem.js';

const ACTIVATIONS: Readonly<Record<number, string>> = { [ACTIVATION.TANH]: 'Tanh', [ACTIVATION.RELU]: 'Relu' };

/**
 * UNIDIRECTIONAL_SEQUENCE_LSTM → ONNX LSTM (one direction). TFLite's gate tensors are in the order
 * input, forget, cell, output; ONNX stacks them as input, output, forget, cell. Quantized weights
 * and biases are dequantized by DequantizeLinear nodes in the graph and the LSTM runs in float; the
 * output is quantized to the output tensor's parameters.
 */
export function unidirectionalSequenceLstm(ctx: ImportContext): void {
  const o = options(ctx);
  const version = ctx.op?.opcode.version ?? 1;
  const x = ctx.requireInput(0);
  const out = ctx.outputTensor();
  const unsupported = (what: string): never => {
    throw new ImportProblem('TSGE-E3402', { op: `${ctx.opName()} with ${what}`, version });
  };
  if (!ctx.inputTensor(1) || !ctx.inputTensor(5)) unsupported('coupled input and forget gates (CIFG)');
  if (ctx.inputTensor(16)) unsupported('a projection layer');
  if ([20, 21, 22, 23].some((i) => ctx.inputTensor(i))) unsupported('layer normalisation');
  if (o.float32(2) !== 0) unsupported('projection clipping');
  const activation = ACTIVATIONS[o.int8(0)];
  if (!activation) unsupported(`fused activation ${o.int8(0)}`);
  const timeMajor = o.bool(3);
  if (x.shape.length !== 3) badOperator(`${ctx.opName()} needs a 3-D input, has [${x.shape}]`);
  const w = (i: number) => ctx.requireInput(i);
  const hidden = w(2).shape[0] as number;
  const inputSize = w(2).shape[1] as number;
  const outputSize = w(6).shape[1] as number;
  if (outputSize !== hidden) badOperator(`${ctx.opName()}: recurrent weights [${w(6).shape}] do not match ${hidden} cells`);
  // ONNX order i, o, f, c from TFLite's i, f, c, o
  const order = [0, 3, 1, 2];
  const stack = (first: number, cols: number, name: string): Value => {
    const parts = order.map((g) => ctx.float(w(first + g)));
    const joined = ctx.node('Concat', parts, 'float32', [4 * hidden, cols], { axis: attr.int(0) });
    return ctx.node('Unsqueeze', [joined, ctx.int64s(name, [0])], 'float32', [1, 4 * hidden, cols]);
  };
  const weights = stack(1, inputSize, 'w_axes');
  const recurrent = stack(5, hidden, 'r_axes');
  const biases = order.map((g) => ctx.inputTensor(12 + g));
  let bias: Value | undefined;
  if (biases.some((b) => b)) {
    const parts = biases.map((b) => (b ? ctx.float(b) : ctx.constant('zero_bias', new Float32Array(hidden), [hidden], 'float32')));
    const zeros = ctx.constant('recurrent_bias', new Float32Array(4 * hidden), [4 * hidden], 'float32');
    const joined = ctx.node('Concat', [...parts, zeros], 'float32', [8 * hidden], { axis: attr.int(0) });
    bias = ctx.node('Unsqueeze', [joined, ctx.int64s('b_axes', [0])], 'float32', [1, 8 * hidden]);
  }
  const peepholes = [9, 11, 10].map((i) => ctx.inputTensor(i));
  let peephole: Value | undefined;
  if (peepholes.some((p) => p)) {
    if (!peepholes.every((p) => p)) unsupported('partial peepholes');
    const joined = ctx.node(
      'Concat',
      peepholes.map((p) => ctx.float(p as TfliteTensor)),
      'float32',
      [3 * hidden],
      { axis: attr.int(0) },
    );
    peephole = ctx.node('Unsqueeze', [joined, ctx.int64s('p_axes', [0])], 'float32', [1, 3 * hidden]);
  }
  const [d0, d1] = ctx.shapeOf(x) as [number, number];
  const [seq, batch] = timeMajor ? [d0, d1] : [d1, d0];
  const input = timeMajor
    ? ctx.float(x)
    : ctx.node('Transpose', [ctx.float(x)], 'float32', [seq, batch, inputSize], { perm: attr.ints([1, 0, 2]) });
  // the state tensors are variables that start at zero unless the model stores a value
  const state = (i: number, size: number): Value | undefined => {
    const t = ctx.inputTensor(i);
    if (!t || !ctx.isConst(t)) return undefined;
    return ctx.node('Unsqueeze', [ctx.float(t), ctx.int64s('s_axes', [0])], 'float32', [1, batch, size]);
  };
  const cellClip = o.float32(1);
  const attrs = {
    hidden_size: attr.int(hidden),
    direction: attr.string('forward'),
    activations: attr.strings(['Sigmoid', activation as string, activation as string]),
    ...(cellClip > 0 ? { clip: attr.float(cellClip) } : {}),
  };
  const [y] = ctx.nodeN(
    'LSTM',
    [input, weights, recurrent, bias, undefined, state(18, hidden), state(19, hidden), peephole],
    [{ dtype: 'float32', shape: [seq, 1, batch, hidden] }],
    attrs,
  );
  const squeezed = ctx.node('Squeeze', [y as Value, ctx.int64s('axes', [1])], 'float32', [seq, batch, hidden]);
  const result = timeMajor ? squeezed : ctx.node('Transpose', [squeezed], 'float32', [batch, seq, hidden], { perm: attr.ints([1, 0, 2]) });
  ctx.setFloat(out, result);
}
