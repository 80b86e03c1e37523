import { type AttrValue, type Value, attr } from '@tsge/metadef';
import type { TfliteTensor } from '../../schema/model.js';
import { type ImportContext, type Layout, TO_NCHW, permuteShape } from '../context.js';
import { activate, agnosticLayout, options, permuteData } from '../helpers.js';
import { quantizedAdd } from './quantized-add.js';
import { quantizedMul } from './quantized-mul.js';

/**
 * Elementwise ops run on float values (quantized inputs are dequantized in the graph and the
 * result quantized to the output's parameters), in whichever layout their inputs already have;
 * quantized ADD, SUB and MUL are integer as in LiteRT (quantized-add.ts, quantized-mul.ts).
 */

function shapeIn(ctx: ImportContext, t: TfliteTensor, layout: Layout): number[] {
  return layout === 'nchw' ? permuteShape(ctx.shapeOf(t) as number[], TO_NCHW) : (ctx.shapeOf(t) as number[]);
}

/** A float operand in a layout; in NCHW a lower-rank constant is broadcast to 4-D first. */
function operand(ctx: ImportContext, t: TfliteTensor, layout: Layout): Value {
  if (layout === 'native' || t.shape.length === 4) return ctx.float(t, layout);
  const data = ctx.constData(t);
  const full = [...new Array(4 - t.shape.length).fill(1), ...t.shape];
  if (!data) return ctx.float(t, 'native');
  const permuted = permuteData(data, full, TO_NCHW);
  const dims = permuteShape(full, TO_NCHW);
  const raw = ctx.constant('operand', permuted, dims, ctx.dtypeOf(t));
  const q = ctx.isQuantized(t) ? ctx.quant(t) : undefined;
  if (q && q.axis === undefined) {
    const [scale, zp] = ctx.quantConsts(t, q);
    return ctx.node('DequantizeLinear', [raw, scale, zp], 'float32', dims);
  }
  if (ctx.dtypeOf(t) === 'float32') return raw;
  return ctx.node('Cast', [raw], 'float32', dims, { to: attr.int(1) });
}

/** ADD, SUB, MUL, DIV, MAXIMUM, MINIMUM, POW, SQUARED_DIFFERENCE (with fused activation where TFLite has one). */
export function binary(type: string, activationSlot?: number) {
  return (ctx: ImportContext): void => {
    const a = ctx.requireInput(0);
    const b = ctx.requireInput(1);
    const out = ctx.outputTensor();
    const layout = agnosticLayout(ctx, [0, 1], out.shape.length);
    // a lower-rank non-constant operand cannot follow the NCHW layout
    const useLayout = layout === 'nchw' && [a, b].every((t) => t.shape.length === 4 || ctx.isConst(t)) ? 'nchw' : 'native';
    const shape = shapeIn(ctx, out, useLayout);
    if (
      !ctx.isQuantized(out) &&
      ctx.dtypeOf(out) !== 'float32' &&
      ctx.dtypeOf(a) === ctx.dtypeOf(out) &&
      !ctx.isQuantized(a) &&
      type !== 'SquaredDifference'
    ) {
      // plain integer arithmetic (shape computations) stays integer, in the native layout
      ctx.set(out.index, ctx.node(type, [ctx.raw(a), ctx.raw(b)], ctx.dtypeOf(out), ctx.shapeOf(out)));
      return;
    }
    const activation = activationSlot === undefined ? 0 : options(ctx).int8(activationSlot);
    if ((type === 'Add' || type === 'Sub') && quantizedAdd(ctx, a, b, out, useLayout, shape, activation, type === 'Sub')) return;
    if (type === 'Mul' && quantizedMul(ctx, a, b, out, useLayout, shape, activation)) return;
    const x = operand(ctx, a, useLayout);
    const y = operand(ctx, b, useLayout);
    let r: Value;
    if (type === 'SquaredDifference') {
      const d = ctx.node('Sub', [x, y], 'float32', shape);
      r = ctx.node('Mul', [d, d], 'float32', shape);
    } else r = ctx.node(type, [x, y], 'float32', shape);
    if (activationSlot !== undefined) r = activate(ctx, r, activation, shape);
    ctx.setFloat(out, r, useLayout);
  };
}

/** Comparisons and logical ops: bool results, computed on float (or raw bool) inputs. */
export function compare(type: string, negate = false) {
  return (ctx: ImportContext): void => {
    const a = ctx.requireInput(0);
    const b = ctx.requireInput(1);
    const out = ctx.outputTensor();
    const shape = ctx.shapeOf(out);
    const floatInputs = ctx.dtypeOf(a) !== 'bool';
    const x = floatInputs ? ctx.float(a) : ctx.raw(a);
    const y = floatInputs ? ctx.float(b) : ctx.raw(b);
    let r = ctx.node(type, [x, y], 'bool', shape);
    if (negate) r = ctx.node('Not', [r], 'bool', shape);
    ctx.set(out.index, r);
  };
}

export function logical(type: 'And' | 'Or' | 'Not') {
  return (ctx: ImportContext): void => {
    const out = ctx.outputTensor();
    const inputs = type === 'Not' ? [ctx.raw(ctx.requireInput(0))] : [ctx.raw(ctx.requireInput(0)), ctx.raw(ctx.requireInput(1))];
    ctx.set(out.index, ctx.node(type, inputs, 'bool', ctx.shapeOf(out)));
  };
}

/** Unary float ops (LOGISTIC, TANH, RELU, EXP, ...), layout-agnostic. */
export function unary(type: string, attrs: (ctx: ImportContext) => Record<string, AttrValue> = () => ({})) {
  return (ctx: ImportContext): void => {
    const x = ctx.requireInput(0);
    const out = ctx.outputTensor();
    const layout = agnosticLayout(ctx, [0], out.shape.length);
    const shape = shapeIn(ctx, out, layout);
    const v = ctx.float(x, layout);
    let y: Value;
    if (type === 'Square') y = ctx.node('Mul', [v, v], 'float32', shape);
    else if (type === 'Rsqrt') y = ctx.node('Reciprocal', [ctx.node('Sqrt', [v], 'float32', shape)], 'float32', shape);
    else if (type === 'Relu6' || type === 'ReluN1To1' || type === 'Relu0To1') {
      const [lo, hi] = type === 'Relu6' ? [0, 6] : type === 'ReluN1To1' ? [-1, 1] : [0, 1];
      y = ctx.node(
        'Clip',
        [v, ctx.constant('min', Float32Array.of(lo), [], 'float32'), ctx.constant('max', Float32Array.of(hi), [], 'float32')],
        'float32',
        shape,
      );
    } else y = ctx.node(type, [v], 'float32', shape, attrs(ctx));
    ctx.setFloat(out, y, layout);
  };
}

/** PRELU: alpha broadcast against the input. */
export function prelu(ctx: ImportContext): void {
  const x = ctx.requireInput(0);
  const alpha = ctx.requireInput(1);
  const out = ctx.outputTensor();
  const layout = x.shape.length === 4 && ctx.hasLayout(x, 'nchw') && ctx.isConst(alpha) ? 'nchw' : 'native';
  const shape = shapeIn(ctx, out, layout);
  ctx.setFloat(out, ctx.node('PRelu', [ctx.float(x, layout), operand(ctx, alpha, layout)], 'float32', shape), layout);
}

/** SELECT / SELECT_V2: Where(condition, x, y). */
export function select(ctx: ImportContext): void {
  const c = ctx.requireInput(0);
  const a = ctx.requireInput(1);
  const b = ctx.requireInput(2);
  const out = ctx.outputTensor();
  const shape = ctx.shapeOf(out);
  if (ctx.sameQuant(a, out) && ctx.sameQuant(b, out))
    ctx.set(out.index, ctx.node('Where', [ctx.raw(c), ctx.raw(a), ctx.raw(b)], ctx.dtypeOf(out), shape));
  else ctx.setFloat(out, ctx.node('Where', [ctx.raw(c), ctx.float(a), ctx.float(b)], 'float32', shape));
}
