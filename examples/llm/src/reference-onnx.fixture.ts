// The same decoder as decoder-graph.ts written as a plain ONNX graph (standard opset-21 ops only:
// MatMul, Softmax, Concat, Expand, ...), attention spelled out with an additive causal mask fed by the
// caller, for onnxruntime-node to run as an independent reference. Encoded with protobufjs' writer.
import protobuf from 'protobufjs/minimal.js';
import type { DecoderConfig } from './config.js';
import { type WeightSource, transpose } from './decoder-graph.js';

type Attr = { name: string; i: number } | { name: string; f: number } | { name: string; ints: readonly number[] };
interface NodeProto {
  op: string;
  inputs: string[];
  output: string;
  attrs: Attr[];
}

const encode = (build: (w: protobuf.Writer) => void): Uint8Array => {
  const w = protobuf.Writer.create();
  build(w);
  return w.finish();
};

class OnnxGraph {
  readonly nodes: NodeProto[] = [];
  readonly initializers: Uint8Array[] = [];
  private count = 0;

  op(op: string, inputs: string[], attrs: Attr[] = []): string {
    const output = `${op}_${this.count++}`;
    this.nodes.push({ op, inputs, output, attrs });
    return output;
  }

  floats(name: string, data: Float32Array, dims: readonly number[]): string {
    return this.tensor(name, 1, new Uint8Array(data.buffer, data.byteOffset, data.byteLength), dims);
  }

  ints(values: readonly number[]): string {
    const data = BigInt64Array.from(values, BigInt);
    return this.tensor(`ints_${this.count++}`, 7, new Uint8Array(data.buffer), [values.length]);
  }

  private tensor(name: string, type: number, raw: Uint8Array, dims: readonly number[]): string {
    this.initializers.push(
      encode((w) => {
        for (const d of dims) w.uint32(8).int64(d);
        w.uint32(16).int32(type).uint32(66).string(name).uint32(74).bytes(raw);
      }),
    );
    return name;
  }
}

/** An input or output: float32 unless int64, dims numbers or symbolic names. */
type Io = [name: string, elem: 1 | 6 | 7, dims: (number | string)[]];

const valueInfo = ([name, elem, dims]: Io) =>
  encode((w) => {
    const shape = encode((s) => {
      for (const d of dims) s.uint32(10).bytes(encode((x) => (typeof d === 'number' ? x.uint32(8).int64(d) : x.uint32(18).string(d))));
    });
    w.uint32(10)
      .string(name)
      .uint32(18)
      .bytes(encode((t) => t.uint32(10).bytes(encode((x) => x.uint32(8).int32(elem).uint32(18).bytes(shape)))));
  });

const attribute = (a: Attr) =>
  encode((w) => {
    w.uint32(10).string(a.name);
    if ('i' in a) w.uint32(24).int64(a.i).uint32(160).int32(2);
    else if ('f' in a) w.uint32(21).float(a.f).uint32(160).int32(1);
    else {
      for (const v of a.ints) w.uint32(64).int64(v);
      w.uint32(160).int32(7);
    }
  });

/**
 * Inputs: `input_ids` [1, seq], `cos`/`sin` [seq, headDim/2] (the new positions' angles), `mask`
 * [seq, total] (0 or −1e9) and the past key/values; outputs as the tsge graph's.
 */
export function referenceDecoderOnnx(config: DecoderConfig, weights: WeightSource): Uint8Array {
  const g = new OnnxGraph();
  const { hidden, heads, kvHeads, headDim, vocab, intermediate } = config;
  const half = headDim / 2;
  const w = (name: string) => weights.get(name).data;
  const eps = g.floats('eps', Float32Array.of(config.rmsEps), []);
  const rms = (x: string, name: string, size: number) => {
    const mean = g.op('ReduceMean', [g.op('Mul', [x, x]), g.ints([-1])], [{ name: 'keepdims', i: 1 }]);
    return g.op('Mul', [g.op('Div', [x, g.op('Sqrt', [g.op('Add', [mean, eps])])]), g.floats(name, w(name), [size])]);
  };
  const linear = (x: string, prefix: string, inSize: number, outSize: number) => {
    const y = g.op('MatMul', [x, g.floats(`${prefix}.weight`, transpose(w(`${prefix}.weight`), outSize, inSize), [inSize, outSize])]);
    return weights.has(`${prefix}.bias`) ? g.op('Add', [y, g.floats(`${prefix}.bias`, w(`${prefix}.bias`), [outSize])]) : y;
  };
  /** [1, seq, n·headDim] → [1, n, seq, headDim], head-normed (Qwen3) and rotated. */
  const heads4 = (x: string, n: number, norm: string, rotate: boolean) => {
    let y = g.op('Transpose', [g.op('Reshape', [x, g.ints([1, -1, n, headDim])])], [{ name: 'perm', ints: [0, 2, 1, 3] }]);
    if (weights.has(norm)) y = rms(y, norm, headDim);
    if (!rotate) return y;
    const x1 = g.op('Slice', [y, g.ints([0]), g.ints([half]), g.ints([3])]);
    const x2 = g.op('Slice', [y, g.ints([half]), g.ints([headDim]), g.ints([3])]);
    const r1 = g.op('Sub', [g.op('Mul', [x1, 'cos']), g.op('Mul', [x2, 'sin'])]);
    const r2 = g.op('Add', [g.op('Mul', [x2, 'cos']), g.op('Mul', [x1, 'sin'])]);
    return g.op('Concat', [r1, r2], [{ name: 'axis', i: 3 }]);
  };
  /** [1, kvHeads, total, headDim] repeated to [1, heads, total, headDim]. */
  const repeat = (x: string) => {
    const five = g.op('Reshape', [x, g.ints([1, kvHeads, 1, -1, headDim])]);
    const wide = g.op('Expand', [five, g.ints([1, 1, heads / kvHeads, 1, 1])]);
    return g.op('Reshape', [wide, g.ints([1, heads, -1, headDim])]);
  };
  const inputs: Io[] = [
    ['input_ids', 7, [1, 'seq']],
    ['cos', 1, ['seq', half]],
    ['sin', 1, ['seq', half]],
    ['mask', 1, ['seq', 'total']],
  ];
  const outputs: Io[] = [['logits', 1, [1, 1, vocab]]];
  const scale = g.floats('scale', Float32Array.of(1 / Math.sqrt(headDim)), []);
  let x = g.op('Gather', [g.floats('embed', w('model.embed_tokens.weight'), [vocab, hidden]), 'input_ids'], [{ name: 'axis', i: 0 }]);
  for (let i = 0; i < config.layers; i++) {
    const p = `model.layers.${i}`;
    inputs.push(
      [`past_key_values.${i}.key`, 1, [1, kvHeads, 'past', headDim]],
      [`past_key_values.${i}.value`, 1, [1, kvHeads, 'past', headDim]],
    );
    const h = rms(x, `${p}.input_layernorm.weight`, hidden);
    const q = heads4(linear(h, `${p}.self_attn.q_proj`, hidden, heads * headDim), heads, `${p}.self_attn.q_norm.weight`, true);
    const k = heads4(linear(h, `${p}.self_attn.k_proj`, hidden, kvHeads * headDim), kvHeads, `${p}.self_attn.k_norm.weight`, true);
    const v = heads4(linear(h, `${p}.self_attn.v_proj`, hidden, kvHeads * headDim), kvHeads, '', false);
    const key = g.op('Concat', [`past_key_values.${i}.key`, k], [{ name: 'axis', i: 2 }]);
    const value = g.op('Concat', [`past_key_values.${i}.value`, v], [{ name: 'axis', i: 2 }]);
    g.op('Identity', [key]);
    (g.nodes.at(-1) as NodeProto).output = `present.${i}.key`;
    g.op('Identity', [value]);
    (g.nodes.at(-1) as NodeProto).output = `present.${i}.value`;
    outputs.push([`present.${i}.key`, 1, [1, kvHeads, 'total', headDim]], [`present.${i}.value`, 1, [1, kvHeads, 'total', headDim]]);
    const kt = g.op('Transpose', [repeat(key)], [{ name: 'perm', ints: [0, 1, 3, 2] }]);
    const scores = g.op('Add', [g.op('Mul', [g.op('MatMul', [q, kt]), scale]), 'mask']);
    const context = g.op('MatMul', [g.op('Softmax', [scores], [{ name: 'axis', i: -1 }]), repeat(value)]);
    const merged = g.op('Reshape', [
      g.op('Transpose', [context], [{ name: 'perm', ints: [0, 2, 1, 3] }]),
      g.ints([1, -1, heads * headDim]),
    ]);
    x = g.op('Add', [x, linear(merged, `${p}.self_attn.o_proj`, heads * headDim, hidden)]);
    const m = rms(x, `${p}.post_attention_layernorm.weight`, hidden);
    const gate = linear(m, `${p}.mlp.gate_proj`, hidden, intermediate);
    const act = g.op('Mul', [g.op('Mul', [gate, g.op('Sigmoid', [gate])]), linear(m, `${p}.mlp.up_proj`, hidden, intermediate)]);
    x = g.op('Add', [x, linear(act, `${p}.mlp.down_proj`, intermediate, hidden)]);
  }
  const last = rms(g.op('Slice', [x, g.ints([-1]), g.ints([2 ** 53 - 1]), g.ints([1])]), 'model.norm.weight', hidden);
  const head = config.tieEmbeddings ? w('model.embed_tokens.weight') : w('lm_head.weight');
  g.op('MatMul', [last, g.floats('lm_head', transpose(head, vocab, hidden), [hidden, vocab])]);
  (g.nodes.at(-1) as NodeProto).output = 'logits';

  const graph = encode((e) => {
    for (const n of g.nodes)
      e.uint32(10).bytes(
        encode((x) => {
          for (const i of n.inputs) x.uint32(10).string(i);
          x.uint32(18).string(n.output).uint32(34).string(n.op);
          for (const a of n.attrs) x.uint32(42).bytes(attribute(a));
        }),
      );
    e.uint32(18).string('reference');
    for (const t of g.initializers) e.uint32(42).bytes(t);
    for (const i of inputs) e.uint32(90).bytes(valueInfo(i));
    for (const o of outputs) e.uint32(98).bytes(valueInfo(o));
  });
  return encode((e) => {
    e.uint32(8)
      .int64(10)
      .uint32(66)
      .bytes(encode((o) => o.uint32(10).string('').uint32(16).int64(21)));
    e.uint32(58).bytes(graph);
  });
}
