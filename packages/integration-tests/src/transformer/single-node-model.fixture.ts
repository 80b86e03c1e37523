// Encodes a one-node ONNX model (every operand a graph input, symbolic dims) with protobufjs'
// writer, so contrib ops can be run by onnxruntime-node and by tsge on the same bytes.
import protobuf from 'protobufjs/minimal.js';

const { Writer } = protobuf;

export const ELEM = { float32: 1, uint8: 2, int8: 3, int32: 6, int64: 7, bool: 9, float16: 10 } as const;

export type Attr =
  | { name: string; int: number }
  | { name: string; float: number }
  | { name: string; ints: readonly number[] }
  | { name: string; string: string }
  /** A float32 or byte tensor (a Constant's `value`). */
  | { name: string; tensor: { readonly dims: readonly number[]; readonly data: Float32Array | Uint8Array | Int8Array } };

export interface Operand {
  readonly name: string;
  readonly type: keyof typeof ELEM;
  /** Numbers fixed, strings symbolic. */
  readonly dims: readonly (number | string)[];
}

function message(build: (w: protobuf.Writer) => void): Uint8Array {
  const w = Writer.create();
  build(w);
  return w.finish();
}

const valueInfo = (o: Operand): Uint8Array =>
  message((w) => {
    w.uint32(10).string(o.name);
    const shape = message((s) => {
      for (const d of o.dims)
        s.uint32(10).bytes(message((dim) => (typeof d === 'number' ? dim.uint32(8).int64(d) : dim.uint32(18).string(d))));
    });
    const tensor = message((t) => t.uint32(8).int32(ELEM[o.type]).uint32(18).bytes(shape));
    w.uint32(18).bytes(message((t) => t.uint32(10).bytes(tensor)));
  });

const attribute = (a: Attr): Uint8Array =>
  message((w) => {
    w.uint32(10).string(a.name);
    if ('int' in a) w.uint32(24).int64(a.int).uint32(160).int32(2);
    else if ('tensor' in a) {
      const { dims, data } = a.tensor;
      const tensor = message((t) => {
        for (const d of dims) t.uint32(8).int64(d);
        const elem = data instanceof Float32Array ? ELEM.float32 : data instanceof Int8Array ? ELEM.int8 : ELEM.uint8;
        t.uint32(16)
          .int32(elem)
          .uint32(74)
          .bytes(new Uint8Array(data.buffer, data.byteOffset, data.byteLength));
      });
      w.uint32(42).bytes(tensor).uint32(160).int32(4);
    } else if ('ints' in a) {
      for (const v of a.ints) w.uint32(64).int64(v);
      w.uint32(160).int32(7);
    } else if ('string' in a) w.uint32(34).string(a.string).uint32(160).int32(3);
    else w.uint32(21).float(a.float).uint32(160).int32(1);
  });

/** One node of a model built by `onnxModel`; an empty input name skips an optional operand. */
export interface NodeSpec {
  readonly opType: string;
  readonly domain: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly attrs?: readonly Attr[];
}

/** A node of the default ONNX domain. */
export const onnxNode = (opType: string, inputs: string[], outputs: string[], attrs: Attr[] = []): NodeSpec => ({
  opType,
  domain: '',
  inputs,
  outputs,
  attrs,
});

/** A model of several nodes (every graph input declared by `inputs`), ONNX `opset` (21) + com.microsoft 1. */
export function onnxModel(nodes: readonly NodeSpec[], inputs: readonly Operand[], outputs: readonly Operand[], opset = 21): Uint8Array {
  const encoded = nodes.map((n, index) =>
    message((w) => {
      for (const i of n.inputs) w.uint32(10).string(i);
      for (const o of n.outputs) w.uint32(18).string(o);
      w.uint32(26).string(`${n.opType}_${index}`).uint32(34).string(n.opType);
      for (const a of n.attrs ?? []) w.uint32(42).bytes(attribute(a));
      w.uint32(58).string(n.domain);
    }),
  );
  const graph = message((w) => {
    for (const n of encoded) w.uint32(10).bytes(n);
    w.uint32(18).string('graph');
    for (const i of inputs) w.uint32(90).bytes(valueInfo(i));
    for (const o of outputs) w.uint32(98).bytes(valueInfo(o));
  });
  const domains = new Set(nodes.map((n) => n.domain).filter((d) => d !== '' && d !== 'ai.onnx'));
  return message((w) => {
    w.uint32(8).int64(10);
    w.uint32(66).bytes(message((o) => o.uint32(10).string('').uint32(16).int64(opset)));
    for (const d of domains) w.uint32(66).bytes(message((o) => o.uint32(10).string(d).uint32(16).int64(1)));
    w.uint32(58).bytes(graph);
  });
}

/** A model of one `domain::opType` node; an undefined input skips an optional operand. */
export function singleNodeModel(
  opType: string,
  domain: string,
  inputs: readonly (Operand | undefined)[],
  outputs: readonly Operand[],
  attrs: readonly Attr[],
): Uint8Array {
  return onnxModel(
    [{ opType, domain, inputs: inputs.map((i) => i?.name ?? ''), outputs: outputs.map((o) => o.name), attrs }],
    inputs.filter((i): i is Operand => i !== undefined),
    outputs,
  );
}
