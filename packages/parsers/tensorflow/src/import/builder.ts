import {
  ATTR_INDEX,
  ATTR_VALUE,
  type AttrValue,
  CONST,
  DATA,
  type DataType,
  Graph,
  type HostTensor,
  NET_OUTPUT,
  type Node,
  type OutDataAnchor,
  type Shape,
  type TensorDesc,
  type Value,
  attr,
  createOpDesc,
  createTensorDesc,
} from '@tsge/metadef';

function valueAt(node: Node, index: number): Value {
  return {
    node,
    index,
    anchor: node.outData[index] as OutDataAnchor,
    get desc(): TensorDesc | undefined {
      return node.opDesc.outputDescs[index];
    },
  };
}

const unknown = (): TensorDesc => createTensorDesc('float32', [-2]);

/**
 * Adds nodes to a Graph with names kept unique through a set (metadef's GraphBuilder looks names
 * up node by node, which is quadratic on graphs of thousands of TF nodes). Output descs are left
 * unknown: the compiler's shape inference fills them.
 */
export class NodeFactory {
  readonly graph: Graph;
  private readonly used = new Set<string>();
  private readonly outputs: { value: Value; name: string }[] = [];
  private inputCount = 0;

  constructor(name: string) {
    this.graph = new Graph(name);
  }

  unique(base: string): string {
    let name = base || 'node';
    for (let i = 1; this.used.has(name); i++) name = `${base}_${i}`;
    this.used.add(name);
    return name;
  }

  /** Gives a node the TF node's name when that name is still free (so `--out_nodes` and dumps read as the model). */
  rename(node: Node, name: string): void {
    if (this.used.has(name) || node.type === DATA) return;
    this.used.delete(node.opDesc.name);
    this.used.add(name);
    node.opDesc.name = name;
    const n = node.opDesc.outputNames.length;
    node.opDesc.outputNames = Array.from({ length: n }, (_, i) => (n === 1 ? name : `${name}:${i}`));
  }

  /** A graph input; `sequence`: it holds a sequence of `dtype` tensors of `shape`. */
  input(name: string, dtype: DataType, shape: Shape, sequence = false): Value {
    const desc = createTensorDesc(dtype, shape);
    if (sequence) desc.valueKind = 'sequence';
    const node = this.graph.addNode(
      createOpDesc({
        name: this.unique(name),
        type: DATA,
        attrs: [[ATTR_INDEX, attr.int(this.inputCount++)]],
        inputDescs: [desc],
        outputDescs: [{ ...desc }],
        outputNames: [name],
      }),
    );
    return valueAt(node, 0);
  }

  constant(name: string, tensor: HostTensor): Value {
    const unique = this.unique(name);
    const node = this.graph.addNode(
      createOpDesc({
        name: unique,
        type: CONST,
        attrs: [[ATTR_VALUE, attr.tensor(tensor)]],
        outputDescs: [createTensorDesc(tensor.type, tensor.dims)],
        outputNames: [unique],
      }),
    );
    return valueAt(node, 0);
  }

  op(
    type: string,
    inputs: readonly (Value | undefined)[],
    outputs: number,
    options: { name: string; attrs?: Record<string, AttrValue>; domain?: string },
  ): Value[] {
    const name = this.unique(options.name);
    const node = this.graph.addNode(
      createOpDesc({
        name,
        type,
        ...(options.domain ? { domain: options.domain } : {}),
        attrs: Object.entries(options.attrs ?? {}),
        inputDescs: inputs.map((v) => (v?.desc ? { ...v.desc } : unknown())),
        outputDescs: Array.from({ length: outputs }, unknown),
        outputNames: Array.from({ length: outputs }, (_, i) => (outputs === 1 ? name : `${name}:${i}`)),
      }),
      { inputs: inputs.length, outputs },
    );
    inputs.forEach((v, i) => {
      if (v) this.graph.addEdge(v.node, v.index, node, i);
    });
    return Array.from({ length: outputs }, (_, i) => valueAt(node, i));
  }

  output(value: Value, name: string): void {
    this.outputs.push({ value, name });
  }

  build(): Graph {
    const net = this.graph.addNode(
      createOpDesc({
        name: this.unique(NET_OUTPUT),
        type: NET_OUTPUT,
        inputDescs: this.outputs.map((o) => (o.value.desc ? { ...o.value.desc } : unknown())),
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
