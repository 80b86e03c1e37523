// Encodes a one-node ONNX model (every operand a graph input, symbolic dims) with protobufjs'
// writer, so contrib ops can be run by onnxruntime-node and by tsge on the same bytes.
import protobuf from 'protobufjs/minimal.js';

const { Writer } = protobuf;

export const ELEM = { float32: 1, int32: 6, int64: 7, float16: 10 } as const;

export type Attr = { name: string; int: number } | { name: string; float: number };

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
    else w.uint32(21).float(a.float).uint32(160).int32(1);
  });

/** A model of one `domain::opType` node; an empty input name skips an optional operand. */
export function singleNodeModel(
  opType: string,
  domain: string,
  inputs: readonly (Operand | undefined)[],
  outputs: readonly Operand[],
  attrs: readonly Attr[],
): Uint8Array {
  const node = message((w) => {
    for (const i of inputs) w.uint32(10).string(i?.name ?? '');
    for (const o of outputs) w.uint32(18).string(o.name);
    w.uint32(26).string(opType).uint32(34).string(opType);
    for (const a of attrs) w.uint32(42).bytes(attribute(a));
    w.uint32(58).string(domain);
  });
  const graph = message((w) => {
    w.uint32(10).bytes(node).uint32(18).string(opType);
    for (const i of inputs) if (i) w.uint32(90).bytes(valueInfo(i));
    for (const o of outputs) w.uint32(98).bytes(valueInfo(o));
  });
  return message((w) => {
    w.uint32(8).int64(10);
    w.uint32(66).bytes(message((o) => o.uint32(10).string('').uint32(16).int64(21)));
    w.uint32(66).bytes(message((o) => o.uint32(10).string(domain).uint32(16).int64(1)));
    w.uint32(58).bytes(graph);
  });
}
