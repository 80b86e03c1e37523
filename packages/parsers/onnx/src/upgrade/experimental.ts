import type { RawNode } from '../import/raw-node.js';
import { numberOf, numbersOf, takeAttr } from './node-edit.js';
import { float32Scalar, float32Vector, int64Vector } from './tensors.js';
import type { UpgradeContext, UpgradeRule } from './upgrade-context.js';

/**
 * Experimental ops of early opsets (removed in opset 10) that old exported models still use,
 * expressed with canonical ops.
 */
function scalarLike(ctx: UpgradeContext, name: string, value: number, like: string): string {
  return ctx.helper('CastLike', [ctx.constant(name, float32Scalar(value)), like])[0] as string;
}

function becomes(node: RawNode, opType: string, inputs: string[]): void {
  node.opType = opType;
  node.inputs = inputs;
  node.attrs = new Map();
}

const removed = (opType: string, description: string, apply: UpgradeRule['apply']): UpgradeRule => ({
  opType,
  before: Number.POSITIVE_INFINITY,
  description,
  apply,
});

export const EXPERIMENTAL_RULES: readonly UpgradeRule[] = [
  removed('ImageScaler', 'ImageScaler → x * scale + bias[c]', (node, ctx) => {
    const x = node.inputs[0] ?? '';
    const scale = numberOf(takeAttr(node, 'scale')) ?? 1;
    const bias = numbersOf(takeAttr(node, 'bias')) ?? [];
    const scaled = ctx.helper('Mul', [x, scalarLike(ctx, 'scale', scale, x)])[0] as string;
    const perChannel = ctx.constant('bias', float32Vector(bias));
    const shaped = ctx.helper('Reshape', [perChannel, ctx.constant('bias_shape', int64Vector([1, bias.length, 1, 1]))])[0] as string;
    becomes(node, 'Add', [scaled, ctx.helper('CastLike', [shaped, x])[0] as string]);
  }),
  removed('Affine', 'Affine → alpha * x + beta', (node, ctx) => {
    const x = node.inputs[0] ?? '';
    const alpha = numberOf(node.attrs.get('alpha')) ?? 1;
    const beta = numberOf(node.attrs.get('beta')) ?? 0;
    const scaled = ctx.helper('Mul', [x, scalarLike(ctx, 'alpha', alpha, x)])[0] as string;
    becomes(node, 'Add', [scaled, scalarLike(ctx, 'beta', beta, x)]);
  }),
  removed('ScaledTanh', 'ScaledTanh → alpha * tanh(beta * x)', (node, ctx) => {
    const x = node.inputs[0] ?? '';
    const alpha = numberOf(node.attrs.get('alpha')) ?? 1;
    const beta = numberOf(node.attrs.get('beta')) ?? 1;
    const inner = ctx.helper('Mul', [x, scalarLike(ctx, 'beta', beta, x)])[0] as string;
    const tanh = ctx.helper('Tanh', [inner])[0] as string;
    becomes(node, 'Mul', [tanh, scalarLike(ctx, 'alpha', alpha, x)]);
  }),
  removed('ParametricSoftplus', 'ParametricSoftplus → alpha * softplus(beta * x)', (node, ctx) => {
    const x = node.inputs[0] ?? '';
    const alpha = numberOf(node.attrs.get('alpha')) ?? 1;
    const beta = numberOf(node.attrs.get('beta')) ?? 1;
    const inner = ctx.helper('Mul', [x, scalarLike(ctx, 'beta', beta, x)])[0] as string;
    const softplus = ctx.helper('Softplus', [inner])[0] as string;
    becomes(node, 'Mul', [softplus, scalarLike(ctx, 'alpha', alpha, x)]);
  }),
  removed('DynamicSlice', 'DynamicSlice → Slice', (node) => {
    node.opType = 'Slice';
  }),
  removed('Crop', 'Crop(border, scale) → Slice on H and W', (node, ctx) => {
    const [left = 0, top = 0, right = 0, bottom = 0] = numbersOf(node.attrs.get('border')) ?? [];
    const scale = numbersOf(node.attrs.get('scale'));
    const big = Number.MAX_SAFE_INTEGER;
    const ends = scale ? [top + (scale[0] ?? 0), left + (scale[1] ?? 0)] : [bottom ? -bottom : big, right ? -right : big];
    const starts = ctx.constant('starts', int64Vector([top, left]));
    const endsName = ctx.constant('ends', int64Vector(ends));
    becomes(node, 'Slice', [node.inputs[0] ?? '', starts, endsName, ctx.constant('axes', int64Vector([2, 3]))]);
  }),
];
