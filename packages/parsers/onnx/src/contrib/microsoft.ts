import { attr } from '@tsge/metadef';
import type { RawNode } from '../import/raw-node.js';
import { numberOf, takeAttr } from '../upgrade/node-edit.js';
import { float32Scalar } from '../upgrade/tensors.js';
import type { UpgradeContext, UpgradeRule } from '../upgrade/upgrade-context.js';

/**
 * onnxruntime's `com.microsoft` contrib ops expressed with canonical ops. Ops not listed here stay
 * as they are, in their domain: those the op registry defines (Attention, MultiHeadAttention,
 * GroupQueryAttention, MatMulNBits, ...) run as themselves, the rest (QAttention, ...) are
 * reported as unsupported by the support check.
 */
const MS = 'com.microsoft';

function becomes(node: RawNode, opType: string, inputs: string[], attrs: Record<string, ReturnType<typeof attr.int>> = {}): void {
  node.opType = opType;
  node.domain = 'ai.onnx';
  node.inputs = inputs;
  node.attrs = new Map(Object.entries(attrs));
}

function addBias(ctx: UpgradeContext, x: string, bias: string | undefined): string {
  return bias ? (ctx.helper('Add', [x, bias])[0] as string) : x;
}

const rule = (opType: string, description: string, apply: UpgradeRule['apply']): UpgradeRule => ({
  opType,
  domain: MS,
  before: Number.POSITIVE_INFINITY,
  description,
  apply,
});

export const MICROSOFT_RULES: readonly UpgradeRule[] = [
  rule('Gelu', 'Gelu → Gelu (exact)', (node) => becomes(node, 'Gelu', [node.inputs[0] ?? ''])),
  rule('FastGelu', 'FastGelu(X, bias) → Gelu(X + bias, tanh)', (node, ctx) => {
    const x = addBias(ctx, node.inputs[0] ?? '', node.inputs[1] || undefined);
    becomes(node, 'Gelu', [x], { approximate: attr.string('tanh') });
  }),
  rule('BiasGelu', 'BiasGelu(A, B) → Gelu(A + B)', (node, ctx) => {
    const x = addBias(ctx, node.inputs[0] ?? '', node.inputs[1] || undefined);
    becomes(node, 'Gelu', [x]);
  }),
  rule('QuickGelu', 'QuickGelu(X) → X * Sigmoid(alpha * X)', (node, ctx) => {
    const x = node.inputs[0] ?? '';
    const alpha = numberOf(takeAttr(node, 'alpha')) ?? 1.702;
    const alphaLike = ctx.helper('CastLike', [ctx.constant('alpha', float32Scalar(alpha)), x])[0] as string;
    const scaled = ctx.helper('Mul', [x, alphaLike])[0] as string;
    const gate = ctx.helper('Sigmoid', [scaled])[0] as string;
    becomes(node, 'Mul', [x, gate]);
  }),
  rule('BiasAdd', 'BiasAdd(X, bias, skip) → X + bias + skip', (node, ctx) => {
    const sum = ctx.helper('Add', [node.inputs[0] ?? '', node.inputs[1] ?? ''])[0] as string;
    becomes(node, 'Add', [sum, node.inputs[2] ?? '']);
  }),
  rule('SkipLayerNormalization', 'SkipLayerNormalization → Add(s) + LayerNormalization', (node, ctx) => {
    const [input, skip, gamma, beta, bias] = node.inputs;
    const epsilon = numberOf(node.attrs.get('epsilon')) ?? 1e-12;
    let sum = ctx.helper('Add', [input ?? '', skip ?? ''])[0] as string;
    sum = addBias(ctx, sum, bias || undefined);
    // output 3 (input + skip + bias) is the sum itself
    const sumOutput = node.outputs[3];
    if (sumOutput) ctx.helper('Identity', [sum], { outputs: 1, rename: sumOutput });
    node.outputs = node.outputs.slice(0, 3);
    becomes(node, 'LayerNormalization', [sum, gamma ?? '', beta ?? ''], { axis: attr.int(-1), epsilon: attr.float(epsilon) });
  }),
  rule('FusedMatMul', 'FusedMatMul → Transpose + MatMul + Mul(alpha)', (node, ctx) => {
    const alpha = numberOf(takeAttr(node, 'alpha')) ?? 1;
    const operands = [node.inputs[0] ?? '', node.inputs[1] ?? ''];
    for (const [i, flag] of ['transA', 'transB'].entries()) {
      if (!numberOf(node.attrs.get(flag))) continue;
      const shape = ctx.shapeOf(operands[i] as string);
      if (!shape || (shape.length === 1 && shape[0] === -2) || shape.length < 2) {
        ctx.warn(`${node.name}: ${flag} needs the operand's rank; left as FusedMatMul`);
        return;
      }
      const perm = shape.map((_, k) => k);
      perm[perm.length - 1] = perm.length - 2;
      perm[perm.length - 2] = perm.length - 1;
      operands[i] = ctx.helper('Transpose', [operands[i] as string], { attrs: { perm: attr.ints(perm) } })[0] as string;
    }
    if (alpha === 1) {
      becomes(node, 'MatMul', operands);
      return;
    }
    const product = ctx.helper('MatMul', operands)[0] as string;
    const alphaLike = ctx.helper('CastLike', [ctx.constant('alpha', float32Scalar(alpha)), product])[0] as string;
    becomes(node, 'Mul', [product, alphaLike]);
  }),
];
