// Test helper: small TF graphs written in code, as a plain GraphDef object (protobufjs JSON form)
// and as protobuf text, so tests can feed the same graph as `.pb` bytes and as `.pbtxt`.
import { createRequire } from 'node:module';
import path from 'node:path';
import protobuf from 'protobufjs';

const protoFile = path.join(
  path.dirname(createRequire(import.meta.url).resolve('@tsge/parser-tensorflow/package.json')),
  'proto/tensorflow.proto',
);
/** TensorFlow's schema file, as the parser ships it. */
export const TF_PROTO = protoFile;

export type AttrJson =
  | { type: string }
  | { i: number }
  | { f: number }
  | { b: boolean }
  | { s: string }
  | { shape: { dim: { size: number }[] } | { unknownRank: true } }
  | { list: { i?: number[]; f?: number[]; s?: string[] } }
  | { tensor: TensorJson };

export interface TensorJson {
  dtype: string;
  tensorShape: { dim: { size: number }[] };
  floatVal?: number[];
  intVal?: number[];
  int64Val?: number[];
  tensorContent?: Uint8Array;
}

export interface NodeJson {
  name: string;
  op: string;
  input?: string[];
  attr?: Record<string, AttrJson>;
}

/** Deterministic values in [-1, 1) for weights. */
export function values(count: number, seed: number): number[] {
  let s = seed >>> 0;
  return Array.from({ length: count }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2147483648 - 1;
  });
}

const dims = (shape: readonly number[]) => ({ dim: shape.map((size) => ({ size })) });

export function constNode(name: string, shape: readonly number[], data: readonly number[], dtype = 'DT_FLOAT'): NodeJson {
  const tensor: TensorJson = { dtype, tensorShape: dims(shape) };
  if (dtype === 'DT_FLOAT') tensor.tensorContent = new Uint8Array(Float32Array.from(data).buffer);
  else tensor.intVal = [...data];
  return { name, op: 'Const', attr: { dtype: { type: dtype }, value: { tensor } } };
}

export function placeholder(name: string, shape: readonly number[], dtype = 'DT_FLOAT'): NodeJson {
  return { name, op: 'Placeholder', attr: { dtype: { type: dtype }, shape: { shape: dims(shape) } } };
}

/** Binary GraphDef through protobufjs reflection (not the parser's generated code). */
export function graphBytes(nodes: readonly NodeJson[]): Uint8Array {
  const GraphDef = protobuf.loadSync(protoFile).lookupType('tensorflow.GraphDef');
  // string attributes are bytes in the schema; fromObject would read a string as base64
  const encoder = new TextEncoder();
  const node = nodes.map((n) => ({
    ...n,
    attr: Object.fromEntries(
      Object.entries(n.attr ?? {}).map(([k, v]) => [k, 's' in v && typeof v.s === 'string' ? { s: encoder.encode(v.s) } : v]),
    ),
  }));
  return GraphDef.encode(GraphDef.fromObject({ node, versions: { producer: 1 } })).finish();
}

function snake(name: string): string {
  return name.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

function quote(bytes: Uint8Array): string {
  let out = '"';
  for (const b of bytes) out += b >= 32 && b < 127 && b !== 34 && b !== 92 ? String.fromCharCode(b) : `\\${b.toString(8).padStart(3, '0')}`;
  return `${out}"`;
}

function textOf(value: unknown, indent: string): string {
  if (value instanceof Uint8Array) return quote(value);
  if (typeof value === 'string') return /^DT_/.test(value) ? value : quote(new TextEncoder().encode(value));
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  const fields = Object.entries(value as Record<string, unknown>);
  const inner = fields
    .flatMap(([key, v]) =>
      Array.isArray(v)
        ? v.map((item) => `${indent}  ${snake(key)}${typeof item === 'object' ? ' ' : ': '}${textOf(item, `${indent}  `)}`)
        : [`${indent}  ${snake(key)}${typeof v === 'object' && !(v instanceof Uint8Array) ? ' ' : ': '}${textOf(v, `${indent}  `)}`],
    )
    .join('\n');
  return `{\n${inner}\n${indent}}`;
}

/** The graph as protobuf text, with `attr` map entries as `key`/`value` blocks. */
export function graphText(nodes: readonly NodeJson[]): string {
  const lines: string[] = ['# written by graph-fixture.ts'];
  for (const n of nodes) {
    lines.push('node {', `  name: ${quote(new TextEncoder().encode(n.name))}`, `  op: "${n.op}"`);
    for (const i of n.input ?? []) lines.push(`  input: "${i}"`);
    for (const [key, value] of Object.entries(n.attr ?? {}))
      lines.push(`  attr {\n    key: "${key}"\n    value ${textOf(value, '    ')}\n  }`);
    lines.push('}');
  }
  lines.push('versions { producer: 1 }');
  return `${lines.join('\n')}\n`;
}

/** A small NHWC conv net: conv+bias+relu, strided conv+relu6, depthwise+batchnorm, pools, mean, dense, softmax. */
export function convNet(): NodeJson[] {
  const f = { type: 'DT_FLOAT' };
  const conv = (name: string, input: string, filter: string, strides: number[], padding: string): NodeJson => ({
    name,
    op: 'Conv2D',
    input: [input, filter],
    attr: {
      T: f,
      strides: { list: { i: strides } },
      padding: { s: padding },
      data_format: { s: 'NHWC' },
      dilations: { list: { i: [1, 1, 1, 1] } },
    },
  });
  const unary = (name: string, op: string, input: string): NodeJson => ({ name, op, input: [input], attr: { T: f } });
  return [
    placeholder('image', [1, 12, 12, 3]),
    constNode('w1', [3, 3, 3, 8], values(3 * 3 * 3 * 8, 1)),
    constNode('b1', [8], values(8, 2)),
    conv('conv1', 'image', 'w1', [1, 1, 1, 1], 'SAME'),
    { name: 'bias1', op: 'BiasAdd', input: ['conv1', 'b1'], attr: { T: f, data_format: { s: 'NHWC' } } },
    unary('relu1', 'Relu', 'bias1'),
    constNode('w2', [3, 3, 8, 8], values(3 * 3 * 8 * 8, 3)),
    conv('conv2', 'relu1', 'w2', [1, 2, 2, 1], 'VALID'),
    unary('relu2', 'Relu6', 'conv2'),
    constNode('dw', [3, 3, 8, 2], values(3 * 3 * 8 * 2, 4)),
    {
      name: 'depthwise',
      op: 'DepthwiseConv2dNative',
      input: ['relu2', 'dw'],
      attr: {
        T: f,
        strides: { list: { i: [1, 1, 1, 1] } },
        padding: { s: 'SAME' },
        data_format: { s: 'NHWC' },
        dilations: { list: { i: [1, 1, 1, 1] } },
      },
    },
    constNode(
      'bn_scale',
      [16],
      values(16, 5).map((v) => 1 + v / 2),
    ),
    constNode('bn_offset', [16], values(16, 6)),
    constNode('bn_mean', [16], values(16, 7)),
    constNode(
      'bn_var',
      [16],
      values(16, 8).map((v) => 1 + v / 2),
    ),
    {
      name: 'bn',
      op: 'FusedBatchNormV3',
      input: ['depthwise', 'bn_scale', 'bn_offset', 'bn_mean', 'bn_var'],
      attr: { T: f, U: f, epsilon: { f: 0.001 }, data_format: { s: 'NHWC' }, is_training: { b: false } },
    },
    unary('relu3', 'Relu', 'bn'),
    {
      name: 'pool',
      op: 'MaxPool',
      input: ['relu3'],
      attr: {
        T: f,
        ksize: { list: { i: [1, 2, 2, 1] } },
        strides: { list: { i: [1, 1, 1, 1] } },
        padding: { s: 'SAME' },
        data_format: { s: 'NHWC' },
      },
    },
    {
      name: 'avg',
      op: 'AvgPool',
      input: ['pool'],
      attr: {
        T: f,
        ksize: { list: { i: [1, 3, 3, 1] } },
        strides: { list: { i: [1, 2, 2, 1] } },
        padding: { s: 'SAME' },
        data_format: { s: 'NHWC' },
      },
    },
    constNode('axes', [2], [1, 2], 'DT_INT32'),
    { name: 'mean', op: 'Mean', input: ['avg', 'axes'], attr: { T: f, Tidx: { type: 'DT_INT32' }, keep_dims: { b: false } } },
    constNode('wd', [16, 5], values(16 * 5, 9)),
    { name: 'dense', op: 'MatMul', input: ['mean', 'wd'], attr: { T: f, transpose_a: { b: false }, transpose_b: { b: false } } },
    unary('probs', 'Softmax', 'dense'),
  ];
}
