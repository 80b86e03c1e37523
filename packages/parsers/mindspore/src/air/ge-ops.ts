import { type AttrValue, type Graph, type Node, ONNX_DOMAIN, TsgeError, attr, createOpDesc, createTensorDesc } from '@tsge/metadef';

/**
 * GE op types (as MindSpore writes them into `.air` files for Ascend) → the canonical op set. The
 * graph comes from metadef's `.air` decoder; each GE node is rewritten in place, keeping its anchors.
 */
type Rewrite = (node: Node, graph: Graph) => void;

const ints = (node: Node, name: string): number[] | undefined => {
  const a = node.opDesc.attrs.get(name);
  return a?.kind === 'ints' ? [...a.value] : a?.kind === 'int' ? [a.value] : undefined;
};
const int = (node: Node, name: string, fallback: number): number => {
  const a = node.opDesc.attrs.get(name);
  return a?.kind === 'int' ? a.value : a?.kind === 'bool' ? (a.value ? 1 : 0) : fallback;
};
const str = (node: Node, name: string, fallback: string): string => {
  const a = node.opDesc.attrs.get(name);
  return a?.kind === 'string' ? a.value : fallback;
};
const fail = (node: Node, reason: string): never => {
  throw TsgeError.of('TSGE-E3310', { node: node.name, op: node.opDesc.type, reason }, { node: node.name, opType: node.opDesc.type });
};

function retype(node: Node, type: string, attrs: Record<string, AttrValue> = {}): void {
  node.opDesc.type = type;
  node.opDesc.domain = ONNX_DOMAIN;
  node.opDesc.attrs = new Map(Object.entries(attrs));
}

/** H and W of a 4-value NCHW (or NHWC) attribute. */
function hw(node: Node, name: string, fallback: number): [number, number] {
  const v = ints(node, name);
  if (!v) return [fallback, fallback];
  const format = str(node, 'data_format', 'NCHW');
  if (format !== 'NCHW') fail(node, `data_format ${format} is not supported (only NCHW)`);
  if (v.length === 4) return [v[2] as number, v[3] as number];
  if (v.length === 2) return [v[0] as number, v[1] as number];
  return fail(node, `${name} has ${v.length} values`);
}

const conv2d: Rewrite = (node) => {
  const strides = hw(node, 'strides', 1);
  const dilations = hw(node, 'dilations', 1);
  const pads = ints(node, 'pads') ?? [0, 0, 0, 0];
  if (pads.length !== 4) fail(node, 'pads must have 4 values (top, bottom, left, right)');
  const padding = str(node, 'padding', '');
  const attrs: Record<string, AttrValue> = {
    strides: attr.ints(strides),
    dilations: attr.ints(dilations),
    group: attr.int(int(node, 'groups', 1)),
  };
  if (padding === 'SAME') attrs.auto_pad = attr.string('SAME_UPPER');
  else attrs.pads = attr.ints([pads[0], pads[2], pads[1], pads[3]] as number[]);
  retype(node, 'Conv', attrs);
};

function pool(type: 'MaxPool' | 'AveragePool'): Rewrite {
  return (node) => {
    const kernel = hw(node, 'ksize', 1);
    const strides = hw(node, 'strides', 1);
    const padding = str(node, 'padding', str(node, 'padding_mode', 'VALID'));
    const attrs: Record<string, AttrValue> = { kernel_shape: attr.ints(kernel), strides: attr.ints(strides) };
    if (padding === 'SAME') attrs.auto_pad = attr.string('SAME_UPPER');
    else if (padding === 'CALCULATED') {
      const pads = ints(node, 'pads') ?? [0, 0, 0, 0];
      attrs.pads = attr.ints([pads[0], pads[2], pads[1], pads[3]] as number[]);
    }
    if (int(node, 'ceil_mode', 0)) attrs.ceil_mode = attr.int(1);
    if (type === 'AveragePool') attrs.count_include_pad = attr.int(int(node, 'exclusive', 1) ? 0 : 1);
    retype(node, type, attrs);
  };
}

/** MatMul/MatMulV2 (x1, x2, bias?): Gemm with the transpose flags. */
const matMul: Rewrite = (node) => {
  const transA = int(node, 'transpose_x1', 0);
  const transB = int(node, 'transpose_x2', 0);
  if (node.inData.length > 3 && node.inData[3]?.peer) fail(node, 'offset_w (quantized weights) is not supported');
  retype(node, 'Gemm', { transA: attr.int(transA), transB: attr.int(transB) });
};

/** BiasAdd on NCHW adds along axis 1: a constant bias gets dims [C, 1, 1], else a Reshape is inserted. */
const biasAdd: Rewrite = (node, graph) => {
  const rank = node.opDesc.outputDescs[0]?.shape.length ?? 0;
  const format = str(node, 'data_format', 'NCHW');
  retype(node, 'Add');
  if (format !== 'NCHW' || rank <= 2) return;
  const anchor = node.inData[1];
  const producer = anchor?.peer?.node;
  if (!anchor || !producer) return fail(node, 'has no bias input');
  const shape = [-1, ...new Array(rank - 2).fill(1)];
  const reshapeShape = graph.addNode(
    createOpDesc({
      name: `${node.name}/bias_shape`,
      type: 'Const',
      attrs: [['value', attr.tensor({ type: 'int64', dims: [shape.length], data: BigInt64Array.from(shape.map(BigInt)) })]],
      outputDescs: [createTensorDesc('int64', [shape.length])],
    }),
  );
  const reshape = graph.addNode(
    createOpDesc({
      name: `${node.name}/bias_reshape`,
      type: 'Reshape',
      inputDescs: [createTensorDesc('float32', [-2]), createTensorDesc('int64', [shape.length])],
      outputDescs: [createTensorDesc('float32', [-2])],
    }),
    { inputs: 2, outputs: 1 },
  );
  graph.insertBetween(anchor, reshape, 0, 0);
  graph.addEdge(reshapeShape, 0, reshape, 1);
};

/** TransData between plain layouts: identity when equal, a transpose between NCHW and NHWC. */
const transData: Rewrite = (node) => {
  const src = str(node, 'src_format', node.opDesc.inputDescs[0]?.format ?? 'ND');
  const dst = str(node, 'dst_format', node.opDesc.outputDescs[0]?.format ?? 'ND');
  const plain = new Set(['ND', 'NCHW', 'NHWC']);
  if (!plain.has(src) || !plain.has(dst)) fail(node, `layout ${src} → ${dst} is a device (blocked) layout; export the model without it`);
  if (src === dst || src === 'ND' || dst === 'ND') return retype(node, 'Identity');
  retype(node, 'Transpose', { perm: attr.ints(src === 'NCHW' ? [0, 2, 3, 1] : [0, 3, 1, 2]) });
};

const softmax: Rewrite = (node) => {
  const axes = ints(node, 'axes') ?? ints(node, 'axis') ?? [-1];
  if (axes.length !== 1) fail(node, 'only one softmax axis is supported');
  retype(node, 'Softmax', { axis: attr.int(axes[0] as number) });
};

const same =
  (type: string): Rewrite =>
  (node) =>
    retype(node, type);

/** GE op type → rewrite. Canonical (ONNX) names that GE shares (Add, Relu, Reshape, ...) need no entry. */
export const GE_OP_REWRITES: ReadonlyMap<string, Rewrite> = new Map<string, Rewrite>([
  ['Conv2D', conv2d],
  ['MaxPool', pool('MaxPool')],
  ['AvgPool', pool('AveragePool')],
  ['AvgPoolV2', pool('AveragePool')],
  ['MaxPoolV3', pool('MaxPool')],
  ['MatMul', matMul],
  ['MatMulV2', matMul],
  ['BiasAdd', biasAdd],
  ['TransData', transData],
  ['SoftmaxV2', softmax],
  ['Softmax', softmax],
  ['RealDiv', same('Div')],
  ['Maximum', same('Max')],
  ['Minimum', same('Min')],
  ['TransposeD', (node) => retype(node, 'Transpose', { perm: attr.ints(ints(node, 'perm') ?? []) })],
  ['ConcatD', (node) => retype(node, 'Concat', { axis: attr.int(int(node, 'concat_dim', 0)) })],
  ['FlattenV2', (node) => retype(node, 'Flatten', { axis: attr.int(int(node, 'axis', 1)) })],
]);

/** GE types that share a canonical name: rewritten only when the node carries GE's attributes. */
const SHARED_NAMES: Readonly<Record<string, (node: Node) => boolean>> = {
  MatMul: (node) => node.opDesc.attrs.has('transpose_x1') || node.opDesc.attrs.has('transpose_x2') || node.inData.length > 2,
  MaxPool: (node) => node.opDesc.attrs.has('ksize'),
  Softmax: (node) => node.opDesc.attrs.has('axes'),
};

/**
 * Rewrites GE op types into the canonical set in place. Nodes already canonical (a tsge-written
 * `.air`, or GE types that mean the same as ONNX's: Add, Relu, Reshape, ...) are left alone; with
 * an op registry, a type it does not know is reported (TSGE-E3309).
 */
export function mapGeOps(graph: Graph, known?: (type: string, domain: string) => boolean): void {
  for (const node of [...graph.nodes]) {
    const type = node.opDesc.type;
    const rewrite = GE_OP_REWRITES.get(type);
    const shared = SHARED_NAMES[type];
    // GE files carry no domain (they read as ai.onnx); nodes of other domains (tsge's own) stay
    if (rewrite && node.opDesc.domain === ONNX_DOMAIN && (!shared || shared(node))) rewrite(node, graph);
    else if (known && !['Data', 'Const', 'NetOutput'].includes(type) && !known(type, node.opDesc.domain)) {
      throw TsgeError.of('TSGE-E3309', { op: type, node: node.name }, { node: node.name, opType: type });
    }
  }
}
