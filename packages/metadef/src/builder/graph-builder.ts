import { TsgeError } from '../errors/tsge-error.js';
import { Graph } from '../graph/graph.js';
import type { Node, OutDataAnchor } from '../graph/node.js';
import { ATTR_INDEX, ATTR_PARENT_NODE_INDEX, ATTR_VALUE, CONST, DATA, NET_OUTPUT, createOpDesc } from '../graph/op-desc.js';
import { inferNode } from '../ops/infer-node.js';
import type { OpRegistry } from '../ops/op-registry.js';
import { type AttrValue, attr } from '../types/attr.js';
import type { DataType, TypedArray } from '../types/dtype.js';
import type { Shape } from '../types/shape.js';
import { type HostTensor, createTensor } from '../types/tensor.js';
import { type TensorDesc, createTensorDesc } from '../types/tensor-desc.js';

/** A value in a graph under construction: one output of one node. */
export interface Value {
  readonly node: Node;
  readonly index: number;
  readonly anchor: OutDataAnchor;
  readonly desc: TensorDesc | undefined;
}

export interface OpOptions {
  readonly name?: string;
  readonly domain?: string;
  readonly attrs?: Readonly<Record<string, AttrValue>>;
  /** Output descs when no registry is given (or to override inference). */
  readonly outputDescs?: readonly TensorDesc[];
  readonly subgraphs?: Readonly<Record<string, Graph>>;
}

export interface GraphBuilderOptions {
  /** With a registry, each op's outputs are inferred as it is added. */
  readonly ops?: OpRegistry;
}

/**
 * Builds graphs in code (GE's "ES" style):
 * ```ts
 * const b = new GraphBuilder('g', { ops });
 * const x = b.input('x', 'float32', [1, 4]);
 * const y = b.op('Relu', [x]);
 * b.output(y, 'y');
 * const graph = b.build();
 * ```
 */
export class GraphBuilder {
  readonly graph: Graph;
  private readonly options: GraphBuilderOptions;
  private readonly outputs: { value: Value; name: string }[] = [];
  private inputCount = 0;
  private counter = 0;

  constructor(name: string, options: GraphBuilderOptions = {}) {
    this.graph = new Graph(name);
    this.options = options;
  }

  private uniqueName(base: string): string {
    let name = base;
    while (this.graph.findNode(name)) name = `${base}_${++this.counter}`;
    return name;
  }

  /** A graph input (`Data` node with the next index). For subgraphs, `parentIndex` wires it. */
  input(name: string, dtype: DataType, shape: Shape, options: { parentIndex?: number } = {}): Value {
    const desc = createTensorDesc(dtype, shape);
    const attrs: [string, AttrValue][] = [[ATTR_INDEX, attr.int(this.inputCount++)]];
    if (options.parentIndex !== undefined) attrs.push([ATTR_PARENT_NODE_INDEX, attr.int(options.parentIndex)]);
    const node = this.graph.addNode(
      createOpDesc({ name: this.uniqueName(name), type: DATA, attrs, inputDescs: [desc], outputDescs: [{ ...desc }], outputNames: [name] }),
    );
    return valueAt(node, 0);
  }

  /** A constant from a tensor or a typed array with dims. */
  constant(name: string, tensor: HostTensor): Value;
  constant(name: string, data: TypedArray | string[], dims: readonly number[], dtype?: DataType): Value;
  constant(name: string, tensorOrData: HostTensor | TypedArray | string[], dims?: readonly number[], dtype?: DataType): Value {
    const tensor =
      dims === undefined
        ? (tensorOrData as HostTensor)
        : createTensor(dtype ?? dtypeOfArray(tensorOrData as TypedArray | string[]), dims, tensorOrData as TypedArray | string[]);
    const node = this.graph.addNode(
      createOpDesc({
        name: this.uniqueName(name),
        type: CONST,
        attrs: [[ATTR_VALUE, attr.tensor(tensor)]],
        outputDescs: [createTensorDesc(tensor.type, tensor.dims)],
        outputNames: [name],
      }),
    );
    return valueAt(node, 0);
  }

  /** Adds an op with one output and returns it. */
  op(type: string, inputs: readonly (Value | undefined)[], options: OpOptions = {}): Value {
    return this.opN(type, inputs, 1, options)[0] as Value;
  }

  /** Adds an op with `outputCount` outputs. */
  opN(type: string, inputs: readonly (Value | undefined)[], outputCount: number, options: OpOptions = {}): Value[] {
    const name = this.uniqueName(options.name ?? `${type}_${this.graph.nodeCount}`);
    const desc = createOpDesc({
      name,
      type,
      ...(options.domain !== undefined ? { domain: options.domain } : {}),
      attrs: Object.entries(options.attrs ?? {}),
      inputDescs: inputs.map((v) => v?.desc ?? createTensorDesc('float32', [-2])),
      outputDescs: Array.from({ length: outputCount }, (_, i) => options.outputDescs?.[i] ?? createTensorDesc('float32', [-2])),
      outputNames: Array.from({ length: outputCount }, (_, i) => (outputCount === 1 ? name : `${name}:${i}`)),
    });
    const node = this.graph.addNode(desc, { inputs: inputs.length, outputs: outputCount });
    inputs.forEach((v, i) => {
      if (v) this.graph.addEdge(v.node, v.index, node, i);
    });
    for (const [attrName, sub] of Object.entries(options.subgraphs ?? {})) {
      desc.attrs.set(attrName, attr.graph(sub.name));
      desc.subgraphNames.push(sub.name);
      this.graph.addSubgraph(sub, node);
    }
    if (this.options.ops && !options.outputDescs) {
      const diagnostics = inferNode(this.graph, node, this.options.ops);
      if (diagnostics.length) throw TsgeError.fromDiagnostics(diagnostics);
    }
    return Array.from({ length: outputCount }, (_, i) => valueAt(node, i));
  }

  /** Marks a value as a graph output. */
  output(value: Value, name?: string): this {
    this.outputs.push({ value, name: name ?? value.node.opDesc.outputNames[value.index] ?? value.node.name });
    return this;
  }

  /** Adds the NetOutput node and returns the graph. */
  build(): Graph {
    const descs = this.outputs.map((o) => o.value.desc ?? createTensorDesc('float32', [-2]));
    const net = this.graph.addNode(
      createOpDesc({
        name: this.uniqueName(NET_OUTPUT),
        type: NET_OUTPUT,
        inputDescs: descs.map((d) => ({ ...d })),
        inputNames: this.outputs.map((o) => o.name),
      }),
      { inputs: this.outputs.length, outputs: 0 },
    );
    this.outputs.forEach((o, i) => {
      this.graph.addEdge(o.value.node, o.value.index, net, i);
    });
    return this.graph;
  }
}

function valueAt(node: Node, index: number): Value {
  const anchor = node.outData[index] as OutDataAnchor;
  return {
    node,
    index,
    anchor,
    get desc() {
      return node.opDesc.outputDescs[index];
    },
  };
}

function dtypeOfArray(data: TypedArray | string[]): DataType {
  if (Array.isArray(data)) return 'string';
  if (data instanceof Float32Array) return 'float32';
  if (data instanceof Float64Array) return 'float64';
  if (data instanceof Int8Array) return 'int8';
  if (data instanceof Uint8Array) return 'uint8';
  if (data instanceof Int16Array) return 'int16';
  if (data instanceof Uint16Array) return 'uint16';
  if (data instanceof Int32Array) return 'int32';
  if (data instanceof Uint32Array) return 'uint32';
  if (data instanceof BigInt64Array) return 'int64';
  return 'uint64';
}
