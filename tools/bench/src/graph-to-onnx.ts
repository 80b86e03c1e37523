// Writes a graph built with metadef's GraphBuilder (one root graph, no subgraphs) as an ONNX model,
// so onnxruntime runs the very ops tsge compiles (com.microsoft GroupQueryAttention, MatMulNBits,
// SimplifiedLayerNormalization, ...). Consts become initializers (raw data), Data nodes graph
// inputs, NetOutput's inputs graph outputs (through Identity nodes carrying the output names).
import {
  ATTR_VALUE,
  CONST,
  DATA,
  type DataType,
  type Dim,
  type Graph,
  type HostTensor,
  NET_OUTPUT,
  ONNX_DTYPE,
  TsgeError,
} from '@tsge/metadef';
import protobuf from 'protobufjs';

const encode = (build: (w: protobuf.Writer) => void): Uint8Array => {
  const w = protobuf.Writer.create();
  build(w);
  return w.finish();
};

const refuse = (what: string, reason: string): TsgeError => TsgeError.of('TSGE-E4156', { what, reason });

function elemType(dtype: DataType, what: string): number {
  const code = (ONNX_DTYPE as Readonly<Record<string, number>>)[dtype];
  if (code === undefined) throw refuse(what, `dtype ${dtype} has no ONNX type`);
  return code;
}

function tensorProto(name: string, t: HostTensor): Uint8Array {
  if (Array.isArray(t.data) || !ArrayBuffer.isView(t.data)) throw refuse(name, 'string tensors are not written');
  const raw = new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength);
  return encode((w) => {
    for (const d of t.dims) w.uint32(8).int64(d);
    w.uint32(16).int32(elemType(t.type, name)).uint32(66).string(name).uint32(74).bytes(raw);
  });
}

function valueInfo(name: string, dtype: DataType, shape: readonly Dim[]): Uint8Array {
  const known = !(shape.length === 1 && shape[0] === -2);
  const dims = encode((s) => {
    for (const d of shape)
      s.uint32(10).bytes(encode((x) => (typeof d === 'number' ? (d >= 0 ? x.uint32(8).int64(d) : x) : x.uint32(18).string(String(d)))));
  });
  const tensor = encode((t) => {
    t.uint32(8).int32(elemType(dtype, name));
    if (known) t.uint32(18).bytes(dims);
  });
  return encode((w) =>
    w
      .uint32(10)
      .string(name)
      .uint32(18)
      .bytes(encode((t) => t.uint32(10).bytes(tensor))),
  );
}

function attribute(name: string, value: { kind: string; value: unknown }, node: string): Uint8Array {
  return encode((w) => {
    w.uint32(10).string(name);
    switch (value.kind) {
      case 'int':
        w.uint32(24)
          .int64(value.value as number)
          .uint32(160)
          .int32(2);
        break;
      case 'float':
        w.uint32(21)
          .float(value.value as number)
          .uint32(160)
          .int32(1);
        break;
      case 'string':
        w.uint32(34)
          .bytes(new TextEncoder().encode(value.value as string))
          .uint32(160)
          .int32(3);
        break;
      case 'ints':
        for (const v of value.value as number[]) w.uint32(64).int64(v);
        w.uint32(160).int32(7);
        break;
      case 'floats':
        for (const v of value.value as number[]) w.uint32(61).float(v);
        w.uint32(160).int32(6);
        break;
      default:
        throw refuse(`node ${node}`, `attribute ${name} of kind ${value.kind} is not written`);
    }
  });
}

/** ONNX bytes of `graph` (opset 21 and com.microsoft 1). Above 2 GB protobuf cannot hold it: TSGE-E4156. */
export function graphToOnnx(graph: Graph): Uint8Array {
  if (graph.subgraphs.size > 0) throw refuse(graph.name, 'subgraphs are not written');
  const edge = (node: { name: string; type: string; opDesc: { outputNames: string[] } }, index: number): string =>
    node.type === DATA ? (node.opDesc.outputNames[0] ?? node.name) : `${node.name}:${index}`;
  const nodes: Uint8Array[] = [];
  const initializers: Uint8Array[] = [];
  const inputs: Uint8Array[] = [];
  const outputs: Uint8Array[] = [];
  let bytes = 0;
  for (const node of graph.nodes) {
    const desc = node.opDesc;
    if (node.type === DATA) {
      const d = desc.outputDescs[0];
      if (!d) throw refuse(`input ${node.name}`, 'no output desc');
      inputs.push(valueInfo(edge(node, 0), d.dtype, d.shape));
      continue;
    }
    if (node.type === CONST) {
      const value = desc.attrs.get(ATTR_VALUE);
      if (value?.kind !== 'tensor') throw refuse(`constant ${node.name}`, 'no tensor value');
      const t = value.value;
      bytes += ArrayBuffer.isView(t.data) ? t.data.byteLength : 0;
      if (bytes >= 2 ** 31) throw refuse(graph.name, 'the weights exceed the 2 GB protobuf holds (fewer layers, or 4-bit weights)');
      initializers.push(tensorProto(edge(node, 0), t));
      continue;
    }
    const inputNames = node.inData.map((anchor) => (anchor.peer ? edge(anchor.peer.node, anchor.peer.index) : ''));
    if (node.type === NET_OUTPUT) {
      inputNames.forEach((from, i) => {
        const name = desc.inputNames[i] ?? `output_${i}`;
        const d = desc.inputDescs[i];
        nodes.push(
          encode((x) => x.uint32(10).string(from).uint32(18).string(name).uint32(26).string(`output_${i}`).uint32(34).string('Identity')),
        );
        outputs.push(valueInfo(name, d?.dtype ?? 'float32', d?.shape ?? [-2]));
      });
      continue;
    }
    // trailing absent optional inputs are dropped, inner ones stay as ''
    while (inputNames.length > 0 && inputNames[inputNames.length - 1] === '') inputNames.pop();
    nodes.push(
      encode((x) => {
        for (const i of inputNames) x.uint32(10).string(i);
        for (let i = 0; i < node.outData.length; i++) x.uint32(18).string(edge(node, i));
        x.uint32(26).string(node.name).uint32(34).string(node.type);
        for (const [name, value] of desc.attrs) if (!name.startsWith('_')) x.uint32(42).bytes(attribute(name, value, node.name));
        if (desc.domain !== '' && desc.domain !== 'ai.onnx') x.uint32(58).string(desc.domain);
      }),
    );
  }
  const body = encode((e) => {
    for (const n of nodes) e.uint32(10).bytes(n);
    e.uint32(18).string(graph.name || 'graph');
    for (const t of initializers) e.uint32(42).bytes(t);
    for (const i of inputs) e.uint32(90).bytes(i);
    for (const o of outputs) e.uint32(98).bytes(o);
  });
  return encode((e) => {
    e.uint32(8).int64(10);
    e.uint32(66).bytes(encode((o) => o.uint32(10).string('').uint32(16).int64(21)));
    e.uint32(66).bytes(encode((o) => o.uint32(10).string('com.microsoft').uint32(16).int64(1)));
    e.uint32(58).bytes(body);
  });
}
