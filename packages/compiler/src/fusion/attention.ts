import type { Dim, FusionMatch, FusionPassV1, FusionPattern, Graph, Node, OutDataAnchor, PassContext, Value } from '@tsge/metadef';
import { attr, constValueOf, createOpDesc, createTensorDesc, opsetOf } from '@tsge/metadef';
import { uniqueName } from '../graph-utils.js';
import { sameDim } from '../passes/dim-origin.js';
import { replaceMatchWith } from './matcher.js';
import { constNumbers, descOf, pattern } from './patterns.js';

// Scaled dot-product attention as PyTorch and the onnx exporters write it:
//   MatMul(Softmax(Add(Scale(MatMul(Q, Transpose(K)), s), mask)), V)
// with the scale after Q·Kᵀ (Mul by s or Div by 1/s), on Q before it, split as √s on both Q and Kᵀ
// (torch's scaled_dot_product_attention export), or absent; the additive mask is optional.
type ScaleForm = 'scores' | 'query' | 'both' | 'none';
type Op = (type: string, args: readonly Value[], nodeName: string) => Value;

interface Variant {
  readonly pattern: FusionPattern;
  readonly scale: ScaleForm;
  readonly mask: boolean;
}

const SCALE_OPS = { ScaleScores: ['Mul', 'Div'], ScaleQ: ['Mul', 'Div'] };

// inputs: 0 Q, 1 K (before its transpose), 2 V, then the scale constants, then the mask
function variant(scale: ScaleForm, mask: boolean): Variant {
  const scales = scale === 'none' ? 0 : scale === 'both' ? 2 : 1;
  const name = `attention-${scale}${mask ? '-mask' : ''}`;
  const inputs = 3 + scales + (mask ? 1 : 0);
  const body = (op: Op, x: readonly Value[]) => {
    const [q0, k, v] = x as [Value, Value, Value];
    let kt = op('Transpose', [k], 'kt');
    const q = scale === 'query' || scale === 'both' ? op('ScaleQ', [q0, x[3] as Value], 'scale_q') : q0;
    if (scale === 'both') kt = op('Mul', [kt, x[4] as Value], 'scale_k');
    let scores = op('MatMul', [q, kt], 'qk');
    if (scale === 'scores') scores = op('ScaleScores', [scores, x[3] as Value], 'scale_scores');
    if (mask) scores = op('Add', [scores, x[3 + scales] as Value], 'mask');
    return [op('MatMul', [op('Softmax', [scores], 'softmax'), v], 'pv')];
  };
  return { pattern: pattern(name, inputs, body, SCALE_OPS), scale, mask };
}

const VARIANTS: readonly Variant[] = (['scores', 'query', 'both', 'none'] as const).flatMap((s) =>
  [true, false].map((mask) => variant(s, mask)),
);

const known = (d: Dim | undefined): d is Dim => d !== undefined && d !== -1 && d !== -2;
const same = (a: Dim | undefined, b: Dim | undefined) => known(a) && a === b;

function intsAttr(node: Node, name: string): readonly number[] | undefined {
  const a = node.opDesc.attrs.get(name);
  return a?.kind === 'ints' ? a.value.map(Number) : undefined;
}

/** A one-element float constant whose rank does not broadcast a 4-D operand further; Div inverts it. */
function scaleFactor(anchor: OutDataAnchor | undefined, divides: boolean): number | undefined {
  const t = constValueOf(anchor?.node);
  const v = constNumbers(anchor);
  if (t?.type !== 'float32' || t.dims.length > 4 || v?.length !== 1) return undefined;
  const s = v[0] as number;
  if (!Number.isFinite(s) || s === 0) return undefined;
  return divides ? 1 / s : s;
}

/** The Kᵀ transpose: [0, 1, 3, 2] of K as [B, H, L, D], or [0, 2, 3, 1] of K as [B, L, H, D]. */
function keyLayout(m: FusionMatch): 'bhld' | 'blhd' | undefined {
  const perm = intsAttr(m.nodes.get('kt') as Node, 'perm')?.join(',');
  return perm === '0,1,3,2' ? 'bhld' : perm === '0,2,3,1' ? 'blhd' : undefined;
}

const intAttr = (node: Node, name: string, fallback: number): number => {
  const a = node.opDesc.attrs.get(name);
  return a?.kind === 'int' ? a.value : fallback;
};

/**
 * The softmax normalises the last axis of the scores (opset < 13 flattens at `axis`, the same for
 * the last one); paddle2onnx's Reshape(Softmax(Flatten(s, 3)), Shape(s)) is one such Softmax by
 * now (`softmax-unflatten.ts`).
 */
function softmaxOverLastAxis(m: FusionMatch): boolean {
  const softmax = m.nodes.get('softmax') as Node;
  const axis = intAttr(softmax, 'axis', opsetOf(softmax) > 0 && opsetOf(softmax) < 13 ? 1 : -1);
  return axis === -1 || axis === 3;
}

/**
 * The scale Attention gets, when the match is a float32 4-D attention whose every condition holds.
 * Dims are compared by value or, when unknown (dynamic), by where they come from (`passes/dim-origin.ts`):
 * the batch and sequence lengths may then be any, the kernel reads them at run time.
 */
function attentionScale(m: FusionMatch, v: Variant): number | undefined {
  const node = (n: string) => m.nodes.get(n) as Node;
  const [qa, va] = [m.inputs[0], m.inputs[2]];
  const ka = node('kt').outData[0];
  const [q, kt, val] = [descOf(qa), descOf(ka), descOf(va)];
  if (!q || !kt || !val || [q, kt, val].some((d) => d.dtype !== 'float32' || d.shape.length !== 4)) return undefined;
  if (!keyLayout(m) || !softmaxOverLastAxis(m)) return undefined;
  const [b, h, s] = q.shape;
  const [, kh, , l] = kt.shape;
  // MatMul broadcasts kv heads only from 1; batch must agree exactly
  const heads = sameDim(ka, 1, qa, 1) || (kh === 1 && known(h));
  const batch = sameDim(ka, 0, qa, 0) && sameDim(va, 0, qa, 0);
  if (!batch || !heads || !sameDim(va, 1, ka, 1) || !sameDim(ka, 2, qa, 3) || !sameDim(va, 2, ka, 3)) return undefined;
  if (v.mask && !maskFits(m.inputs[v.scale === 'none' ? 3 : v.scale === 'both' ? 5 : 4], [b, h, s, l] as Dim[])) return undefined;
  if (v.scale === 'none') return 1;
  const divides = (n: string) => node(n).type === 'Div';
  if (v.scale === 'scores') return scaleFactor(m.inputs[3], divides('scale_scores'));
  const sq = scaleFactor(m.inputs[3], divides('scale_q'));
  if (v.scale === 'query') return sq;
  const sk = scaleFactor(m.inputs[4], false);
  return sq === undefined || sk === undefined ? undefined : sq * sk;
}

/** An additive float mask that broadcasts to the scores [B, H, S, L] without widening them (last axis exactly L). */
function maskFits(anchor: OutDataAnchor | undefined, scores: readonly Dim[]): boolean {
  const mask = descOf(anchor);
  if (mask?.dtype !== 'float32' || mask.shape.length < 1 || mask.shape.length > 4 || mask.shape[0] === -2) return false;
  const offset = 4 - mask.shape.length;
  return mask.shape.every((dim, i) => {
    const target = scores[offset + i];
    // Attention pads a shorter last mask axis as masked, so that one may not broadcast from 1
    return i === mask.shape.length - 1 ? same(dim, target) : dim === 1 || same(dim, target);
  });
}

/** Below this a mask value masks as −∞ does (torch writes finfo(float32).min), once a diagonal key is seen. */
const MASKED = -1e30;

/**
 * A constant mask [S, L] (leading 1s allowed) with S = L that is 0 on and below the diagonal and
 * masked above it: the causal mask torch builds from Trilu/Where/ConstantOfShape, once folded.
 */
function isCausalMask(anchor: OutDataAnchor | undefined): boolean {
  const t = constValueOf(anchor?.node);
  if (t?.type !== 'float32' || t.dims.length < 2) return false;
  const [s, l] = t.dims.slice(-2) as [number, number];
  if (s !== l || t.dims.slice(0, -2).some((d) => d !== 1)) return false;
  const values = constNumbers(anchor) as number[];
  for (let i = 0; i < s; i++)
    for (let j = 0; j < l; j++) {
      const x = values[i * l + j] as number;
      if (j <= i ? x !== 0 : !(x <= MASKED)) return false;
    }
  return true;
}

function replaceAttention(m: FusionMatch, graph: Graph, ctx: PassContext, v: Variant): Node[] {
  const last = m.nodes.get('pv') as Node;
  const scale = attentionScale(m, v) as number;
  const created: Node[] = [];
  let key = m.inputs[1] as OutDataAnchor;
  if (keyLayout(m) === 'blhd') {
    // K arrives as [B, L, H, D]: Attention wants [B, H, L, D]
    const kDesc = descOf(key);
    const shape = kDesc ? [kDesc.shape[0], kDesc.shape[2], kDesc.shape[1], kDesc.shape[3]] : [-2];
    const t = graph.addNode(
      createOpDesc({
        name: uniqueName(graph, `${last.name}_key_heads`),
        type: 'Transpose',
        attrs: [['perm', attr.ints([0, 2, 1, 3])]],
        outputDescs: [createTensorDesc('float32', shape as Dim[])],
      }),
      { inputs: 1, outputs: 1 },
    );
    graph.link(key, t.inData[0] as Node['inData'][number]);
    key = t.outData[0] as OutDataAnchor;
    created.push(t);
  }
  const inputs = [m.inputs[0], key, m.inputs[2]];
  const mask = v.mask ? m.inputs[v.scale === 'none' ? 3 : v.scale === 'both' ? 5 : 4] : undefined;
  // a constant causal mask becomes is_causal: the kernel then skips the keys it would mask
  const causal = isCausalMask(mask);
  if (mask && !causal) inputs.push(mask);
  if (causal) ctx.count('attention-causal');
  const node = graph.addNode(
    createOpDesc({
      name: uniqueName(graph, `${last.name}_attention`),
      type: 'Attention',
      attrs: [
        ['scale', attr.float(scale)],
        ['is_causal', attr.int(causal ? 1 : 0)],
      ],
      outputDescs: [...last.opDesc.outputDescs.slice(0, 1)],
      outputNames: [last.opDesc.outputNames[0] ?? last.name],
    }),
    { inputs: inputs.length, outputs: 1 },
  );
  replaceMatchWith(graph, m, node, inputs);
  return [...created, node];
}

/**
 * Decomposed scaled dot-product attention becomes one ONNX Attention node (O3): every shape, perm,
 * axis and scale condition is checked, so a near miss (a softmax over another axis, a transpose
 * that is not Kᵀ, a mask that would widen the scores) is left alone.
 */
export function attentionFusion(supported: (type: string) => boolean): FusionPassV1 {
  const byName = new Map(VARIANTS.map((v) => [v.pattern.name, v]));
  return {
    specVersion: 'v1',
    name: 'attention',
    level: 3,
    patterns: () => VARIANTS.map((v) => v.pattern),
    requirements: (m) => supported('Attention') && attentionScale(m, byName.get(m.pattern) as Variant) !== undefined,
    replace: (m, graph, ctx) => replaceAttention(m, graph, ctx, byName.get(m.pattern) as Variant),
  };
}
