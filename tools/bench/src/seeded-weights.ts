// Seeded random weights for models whose weights are all equal. The ONNX "light" models replace every
// float initializer by ConstantOfShape(shape, 0.02): their outputs are uniform, and agreeing with
// onnxruntime on a uniform output proves nothing. This rewrites such a model, at the protobuf wire level
// (every other field is copied byte for byte), so that each ConstantOfShape feeding a known weight role
// (Conv/Gemm weight or bias, BatchNormalization parameters) becomes a Constant holding seeded random
// values, scaled He-style so activations stay finite and varied through a deep network.
import { createRandom } from '@tsge/run';
import protobuf from 'protobufjs';

const { Reader, Writer } = protobuf;

/** Wire types (protobuf encoding). */
const VARINT = 0;
const LEN = 2;
/** onnx.TensorProto.DataType */
const FLOAT = 1;
const INT64 = 7;
/** onnx.AttributeProto.AttributeType.TENSOR */
const ATTR_TENSOR = 4;

interface Field {
  readonly no: number;
  readonly wire: number;
  /** The whole field, tag included, for copying verbatim. */
  readonly raw: Uint8Array;
  /** The payload of a length-delimited field. */
  readonly bytes?: Uint8Array;
  /** The value of a varint field. */
  readonly varint?: number;
}

/** protobufjs reads int64 as a Long when the long package is present, else as a number. */
const toNumber = (v: number | protobuf.Long): number => (typeof v === 'number' ? v : protobuf.util.LongBits.from(v).toNumber());

function fieldsOf(buf: Uint8Array): Field[] {
  const r = Reader.create(buf);
  const out: Field[] = [];
  while (r.pos < r.len) {
    const start = r.pos;
    const tag = r.uint32();
    const no = tag >>> 3;
    const wire = tag & 7;
    if (wire === LEN) {
      const bytes = r.bytes();
      out.push({ no, wire, raw: buf.subarray(start, r.pos), bytes });
    } else if (wire === VARINT) {
      const varint = toNumber(r.int64());
      out.push({ no, wire, raw: buf.subarray(start, r.pos), varint });
    } else {
      r.skipType(wire);
      out.push({ no, wire, raw: buf.subarray(start, r.pos) });
    }
  }
  return out;
}

const utf8 = (b: Uint8Array | undefined): string => new TextDecoder().decode(b);

interface NodeInfo {
  readonly opType: string;
  readonly inputs: string[];
  readonly outputs: string[];
  readonly ints: Map<string, number>;
  /** The ConstantOfShape `value` tensor's data type (FLOAT when absent, as ONNX defines). */
  readonly valueType: number;
}

function nodeInfo(bytes: Uint8Array): NodeInfo {
  const inputs: string[] = [];
  const outputs: string[] = [];
  const ints = new Map<string, number>();
  let opType = '';
  let valueType = FLOAT;
  for (const f of fieldsOf(bytes)) {
    if (f.no === 1 && f.bytes) inputs.push(utf8(f.bytes));
    else if (f.no === 2 && f.bytes) outputs.push(utf8(f.bytes));
    else if (f.no === 4 && f.bytes) opType = utf8(f.bytes);
    else if (f.no === 5 && f.bytes) {
      const attr = fieldsOf(f.bytes);
      const name = utf8(attr.find((a) => a.no === 1)?.bytes);
      const i = attr.find((a) => a.no === 3)?.varint;
      if (i !== undefined) ints.set(name, i);
      const t = attr.find((a) => a.no === 5)?.bytes;
      if (name === 'value' && t) valueType = fieldsOf(t).find((x) => x.no === 2)?.varint ?? 0;
    }
  }
  return { opType, inputs, outputs, ints, valueType };
}

/** An int64 initializer's values (a ConstantOfShape's shape), or undefined for anything else. */
function int64Values(tensor: Uint8Array): { name: string; values: number[] } | undefined {
  const fs = fieldsOf(tensor);
  if (fs.find((f) => f.no === 2)?.varint !== INT64) return undefined;
  const name = utf8(fs.find((f) => f.no === 8)?.bytes);
  const values: number[] = [];
  for (const f of fs) {
    if (f.no === 7 && f.wire === VARINT && f.varint !== undefined) values.push(f.varint);
    else if (f.no === 7 && f.bytes) {
      const r = Reader.create(f.bytes);
      while (r.pos < r.len) values.push(toNumber(r.int64()));
    } else if (f.no === 9 && f.bytes) {
      const view = new DataView(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength);
      for (let o = 0; o + 8 <= f.bytes.byteLength; o += 8) values.push(Number(view.getBigInt64(o, true)));
    }
  }
  return { name, values };
}

/** How a weight is drawn: uniform in [lo, hi]. */
interface Draw {
  readonly lo: number;
  readonly hi: number;
}

/**
 * The distribution for a tensor in `role` with `dims`: He-uniform (variance 2/fan_in) for Conv and Gemm
 * weights, small symmetric biases and means, scales below 1 and variances bounded away from 0, so a
 * 50-layer ReLU network neither explodes nor collapses to a constant. Unknown roles are left alone.
 */
function drawFor(role: string, dims: readonly number[], consumer: NodeInfo): Draw | undefined {
  const he = (fanIn: number): Draw => {
    const a = Math.sqrt(6 / Math.max(1, fanIn));
    return { lo: -a, hi: a };
  };
  if (role === 'Conv:1') return he(dims.slice(1).reduce((p, d) => p * d, 1));
  if (role === 'Gemm:1') return he((consumer.ints.get('transB') ?? 0) ? (dims[1] ?? 1) : (dims[0] ?? 1));
  if (role === 'Conv:2' || role === 'Gemm:2') return { lo: -0.1, hi: 0.1 };
  // BN scales around 0.5: a residual block adds its branch to its input, doubling the variance, so
  // with scales near 1 a 16-block ResNet's logits grow ~2^8 and its softmax saturates to one-hot
  if (role === 'BatchNormalization:1') return { lo: 0.3, hi: 0.7 };
  if (role === 'BatchNormalization:2' || role === 'BatchNormalization:3') return { lo: -0.1, hi: 0.1 };
  if (role === 'BatchNormalization:4') return { lo: 0.5, hi: 1.5 };
  return undefined;
}

function encodeConstant(output: string, dims: readonly number[], values: Float32Array): Uint8Array {
  const tensor = Writer.create();
  for (const d of dims) tensor.uint32((1 << 3) | VARINT).int64(d);
  tensor.uint32((2 << 3) | VARINT).int32(FLOAT);
  tensor.uint32((9 << 3) | LEN).bytes(new Uint8Array(values.buffer, values.byteOffset, values.byteLength));
  const attr = Writer.create();
  attr.uint32((1 << 3) | LEN).string('value');
  attr.uint32((5 << 3) | LEN).bytes(tensor.finish());
  attr.uint32((20 << 3) | VARINT).int32(ATTR_TENSOR);
  const node = Writer.create();
  node.uint32((2 << 3) | LEN).string(output);
  node.uint32((3 << 3) | LEN).string(`${output}__seeded`);
  node.uint32((4 << 3) | LEN).string('Constant');
  node.uint32((5 << 3) | LEN).bytes(attr.finish());
  return node.finish();
}

function writeField(w: protobuf.Writer, no: number, bytes: Uint8Array): void {
  w.uint32((no << 3) | LEN).bytes(bytes);
}

export interface SeededModel {
  readonly bytes: Uint8Array;
  /** How many ConstantOfShape weights became seeded random Constants. */
  readonly replaced: number;
}

/**
 * `model` (ONNX ModelProto bytes) with every float ConstantOfShape in a known weight role replaced by a
 * Constant of seeded random values (the same bytes for the same seed). Nodes are kept in place, so the
 * graph stays topologically ordered; everything else is copied verbatim.
 */
export function withSeededWeights(model: Uint8Array, seed: number): SeededModel {
  const random = createRandom(seed);
  const modelFields = fieldsOf(model);
  const graphField = modelFields.find((f) => f.no === 7 && f.bytes);
  if (!graphField?.bytes) return { bytes: model, replaced: 0 };
  const graph = fieldsOf(graphField.bytes);
  const shapes = new Map<string, number[]>();
  for (const f of graph) {
    if (f.no !== 5 || !f.bytes) continue;
    const t = int64Values(f.bytes);
    if (t) shapes.set(t.name, t.values);
  }
  const nodes = graph.map((f) => (f.no === 1 && f.bytes ? nodeInfo(f.bytes) : undefined));
  // role of each value: "<consumer op>:<input index>" of its first consumer
  const roles = new Map<string, { role: string; consumer: NodeInfo }>();
  for (const n of nodes)
    n?.inputs.forEach((name, k) => {
      if (!roles.has(name)) roles.set(name, { role: `${n.opType}:${k}`, consumer: n });
    });
  let replaced = 0;
  const replacedShapes = new Set<string>();
  const graphOut: Uint8Array[] = graph.map((f, i) => {
    const n = nodes[i];
    if (n?.opType !== 'ConstantOfShape' || n.valueType !== FLOAT) return f.raw;
    const [shapeName] = n.inputs;
    const [output] = n.outputs;
    const dims = shapeName === undefined ? undefined : shapes.get(shapeName);
    const use = output === undefined ? undefined : roles.get(output);
    const draw = dims && use ? drawFor(use.role, dims, use.consumer) : undefined;
    if (!dims || !draw || output === undefined) return f.raw;
    const values = new Float32Array(dims.reduce((p, d) => p * d, 1));
    for (let j = 0; j < values.length; j++) values[j] = draw.lo + (draw.hi - draw.lo) * random();
    replaced++;
    replacedShapes.add(shapeName as string);
    const w = Writer.create();
    writeField(w, 1, encodeConstant(output, dims, values));
    return w.finish();
  });
  // the shapes of replaced ConstantOfShapes are now unused: drop their initializers (5) and, as IR < 4
  // lists every initializer among the inputs (11), those inputs too, or runtimes would ask for them
  const stillUsed = new Set(nodes.flatMap((n, i) => (n && graphOut[i] === graph[i]?.raw ? n.inputs : [])));
  const unused = new Set([...shapes.keys()].filter((name) => !stillUsed.has(name) && replacedShapes.has(name)));
  const kept = graphOut.filter((raw, i) => {
    const f = graph[i];
    if (!f?.bytes || (f.no !== 5 && f.no !== 11)) return true;
    const name = utf8(fieldsOf(f.bytes).find((x) => x.no === (f.no === 5 ? 8 : 1))?.bytes);
    return !unused.has(name) || raw !== f.raw;
  });
  const graphWriter = Writer.create();
  writeField(graphWriter, 7, Buffer.concat(kept));
  const modelOut = modelFields.map((f) => (f === graphField ? graphWriter.finish() : f.raw));
  return { bytes: Buffer.concat(modelOut), replaced };
}
