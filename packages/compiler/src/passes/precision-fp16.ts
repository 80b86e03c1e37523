import type { Graph, HostTensor, KernelRegistry, Node, OutDataAnchor } from '@tsge/metadef';
import {
  CONST,
  ONNX_DTYPE,
  attr,
  constValueOf,
  createOpDesc,
  createTensor,
  createTensorDesc,
  numberToFloat16,
  topologicalSort,
} from '@tsge/metadef';
import { addConst, uniqueName } from '../graph-utils.js';
import { definePass } from '../pass-manager.js';

/**
 * Ops whose float outputs follow their float inputs, so they can compute in float16 as a whole
 * (ops with dtype attributes, such as Cast or ConstantOfShape, and float-typed parameters, such
 * as Resize's scales, stay in float32).
 */
export const FP16_OPS: ReadonlySet<string> = new Set([
  'Conv',
  'ConvTranspose',
  'Gemm',
  'MatMul',
  'Add',
  'Sub',
  'Mul',
  'Div',
  'Relu',
  'LeakyRelu',
  'PRelu',
  'Sigmoid',
  'Tanh',
  'HardSigmoid',
  'HardSwish',
  'Gelu',
  'Erf',
  'Sqrt',
  'Exp',
  'Neg',
  'Abs',
  'Clip',
  'MaxPool',
  'AveragePool',
  'GlobalAveragePool',
  'GlobalMaxPool',
  'BatchNormalization',
  'InstanceNormalization',
  'LayerNormalization',
  'Softmax',
  'LogSoftmax',
  'Concat',
  'Reshape',
  'Flatten',
  'Transpose',
  'Squeeze',
  'Unsqueeze',
  'Identity',
  'ReduceMean',
  'ReduceSum',
  'ReduceMax',
  'Pow',
  'Slice',
  'Gather',
  'Split',
  'DepthToSpace',
  'SpaceToDepth',
  'Pad',
  'Max',
  'Min',
  'Sum',
  'Mean',
  'Expand',
  'Tile',
  'Dropout',
]);

function isFloat32(anchor: OutDataAnchor | undefined): boolean {
  return anchor?.node.opDesc.outputDescs[anchor.index]?.dtype === 'float32';
}

function toFloat16(t: HostTensor): HostTensor {
  const src = t.data as Float32Array;
  const out = new Uint16Array(src.length);
  for (let i = 0; i < src.length; i++) out[i] = numberToFloat16(src[i] as number);
  return createTensor('float16', t.dims, out);
}

export function addCast(graph: Graph, source: OutDataAnchor, to: 'float16' | 'bfloat16' | 'float32'): Node {
  const desc = source.node.opDesc.outputDescs[source.index];
  const cast = graph.addNode(
    createOpDesc({
      name: uniqueName(graph, `${source.node.name}_to_${to === 'float16' ? 'fp16' : to === 'bfloat16' ? 'bf16' : 'fp32'}`),
      type: 'Cast',
      attrs: [['to', attr.int(ONNX_DTYPE[to])]],
      outputDescs: [createTensorDesc(to, desc?.shape ?? [-2])],
    }),
    { inputs: 1, outputs: 1 },
  );
  graph.link(source, cast.inData[0] as Node['inData'][number]);
  return cast;
}

/**
 * `precisionMode: 'fp16'`: float32 regions of ops that have a float16 kernel compute in float16.
 * Float32 constants they read are stored as float16 (half the weights); Casts convert at the
 * region borders, so the model's inputs and outputs keep their types.
 */
export function precisionFp16Pass(kernels: KernelRegistry, select: (node: Node) => boolean = () => true) {
  return definePass({
    name: 'precision-fp16',
    level: 0,
    run(graph, ctx) {
      const sorted = topologicalSort(graph);
      if (!sorted.ok) return { changed: false };
      const converted = new Set<Node>();
      for (const node of sorted.order) {
        if (!FP16_OPS.has(node.type) || node.opDesc.domain !== 'ai.onnx' || node.opDesc.subgraphNames.length > 0 || !select(node)) continue;
        const floatOut = node.opDesc.outputDescs.some((d) => d.dtype === 'float32');
        if (!floatOut || !kernels.find(node.type, node.opDesc.domain, 'float16', ['reference'])) continue;
        converted.add(node);
      }
      const toHalf = new Map<OutDataAnchor, OutDataAnchor>();
      const halfConst = new Map<Node, Node>();
      for (const node of converted) {
        for (const input of node.inData) {
          const source = input.peer;
          if (!source || !isFloat32(source) || converted.has(source.node)) continue;
          let half = toHalf.get(source);
          if (!half) {
            const t = source.node.type === CONST ? constValueOf(source.node) : undefined;
            if (t && t.type === 'float32') {
              const c = halfConst.get(source.node) ?? addConst(graph, `${source.node.name}_fp16`, toFloat16(t));
              halfConst.set(source.node, c);
              half = c.outData[0] as OutDataAnchor;
            } else half = addCast(graph, source, 'float16').outData[0] as OutDataAnchor;
            toHalf.set(source, half);
          }
          graph.link(half, input);
        }
      }
      for (const node of converted) {
        node.opDesc.outputDescs.forEach((d, i) => {
          if (d.dtype !== 'float32') return;
          node.opDesc.outputDescs[i] = { ...d, dtype: 'float16' };
          const out = node.outData[i] as OutDataAnchor;
          const outside = out.peers.filter((p) => !converted.has(p.node));
          if (outside.length === 0) return;
          const back = addCast(graph, out, 'float32');
          for (const p of outside) graph.link(back.outData[0] as OutDataAnchor, p);
        });
      }
      for (const n of graph.nodes) ctx.revisit(n);
      if (converted.size) ctx.count('fp16-nodes', converted.size);
      return { changed: converted.size > 0 };
    },
  });
}
