import {
  ATTR_INDEX,
  ATTR_PARENT_NODE_INDEX,
  ATTR_VALUE,
  CONST,
  DATA,
  type Diagnostic,
  Graph,
  type HostTensor,
  NET_OUTPUT,
  type Node,
  type OpRegistry,
  type OutDataAnchor,
  type Shape,
  type TensorDesc,
  attr,
  createOpDesc,
  createTensorDesc,
  diagnostic,
} from '@tsge/metadef';
import { problemToDiagnostic } from '../internal/problem.js';
import type { IGraphProto, INodeProto } from '../internal/proto.js';
import { decodeAttributes } from './attributes.js';
import { constantValue } from './constant.js';
import { MAX_SUBGRAPH_DEPTH, orderNodes } from './order-nodes.js';
import { type RawNode, rawNode } from './raw-node.js';
import type { TensorLoader } from './tensor-loader.js';
import { type ValueType, descOfType, readValueType, unknownDesc } from './value-type.js';

/** Internal attribute names the parser writes (documented in the README). */
export const ATTR_OPSET = '_opset';
export const ATTR_IMPLICIT_INPUTS = '_implicit_inputs';
export const ATTR_IMPLICIT_INPUT = '_implicit_input';
export const ATTR_FORMAL_INPUTS = '_formal_inputs';

export interface ImportContext {
  readonly loader: TensorLoader;
  readonly diagnostics: Diagnostic[];
  readonly file: string | undefined;
  /** Opset version per normalized domain. */
  readonly opsets: ReadonlyMap<string, number>;
  readonly ops: OpRegistry | undefined;
  /** Initializers the user wants as graph inputs rather than constants. */
  readonly initializerInputs: ReadonlySet<string>;
  /** Rewrites (function inlining, contrib mapping, opset upgrade) applied to each graph's nodes. */
  readonly transform: (nodes: RawNode[], graphName: string, shapeOf: (name: string) => Shape | undefined) => RawNode[];
  /** Subgraph names taken so far (subgraphs register with the root only once their parent exists). */
  readonly subgraphNames: Set<string>;
}

/** Name resolution across nested graphs: a subgraph captures outer values as implicit inputs. */
interface Scope {
  readonly values: Map<string, OutDataAnchor>;
  resolve(name: string): OutDataAnchor | undefined;
}

interface SubgraphCapture {
  readonly names: string[];
  readonly dataNodes: Node[];
}

class GraphImport {
  readonly graph: Graph;
  private readonly ctx: ImportContext;
  private readonly usedNames = new Set<string>();
  private readonly types = new Map<string, ValueType>();
  readonly scope: Scope;
  private readonly capture: SubgraphCapture | undefined;
  private readonly depth: number;

  constructor(graph: Graph, ctx: ImportContext, parent: Scope | undefined, depth: number) {
    this.graph = graph;
    this.ctx = ctx;
    this.depth = depth;
    this.capture = parent ? { names: [], dataNodes: [] } : undefined;
    const values = new Map<string, OutDataAnchor>();
    this.scope = {
      values,
      resolve: (name) => {
        const local = values.get(name);
        if (local || !parent) return local;
        const outer = parent.resolve(name);
        if (!outer) return undefined;
        return this.captureOuter(name, outer);
      },
    };
  }

  get captured(): SubgraphCapture | undefined {
    return this.capture;
  }

  private location(node?: string, opType?: string, domain?: string): Diagnostic['location'] {
    return {
      ...(this.ctx.file !== undefined ? { file: this.ctx.file } : {}),
      graph: this.graph.name,
      ...(node !== undefined ? { node } : {}),
      ...(opType !== undefined ? { opType } : {}),
      ...(domain !== undefined ? { domain } : {}),
    };
  }
  report(error: unknown, node?: string, opType?: string, domain?: string): void {
    this.ctx.diagnostics.push(problemToDiagnostic(error, this.location(node, opType, domain)));
  }

  private uniqueName(base: string): string {
    let name = base || 'node';
    for (let i = 1; this.usedNames.has(name); i++) name = `${base}_${i}`;
    this.usedNames.add(name);
    return name;
  }

  private descOf(name: string): TensorDesc {
    const type = this.types.get(name);
    return type ? descOfType(type) : unknownDesc();
  }

  /** An outer value used inside this subgraph becomes a Data node wired to a parent input. */
  private captureOuter(name: string, outer: OutDataAnchor): OutDataAnchor {
    const capture = this.capture as SubgraphCapture;
    const desc = outer.node.opDesc.outputDescs[outer.index] ?? unknownDesc();
    const node = this.graph.addNode(
      createOpDesc({
        name: this.uniqueName(name),
        type: DATA,
        attrs: [
          [ATTR_INDEX, attr.int(-1)],
          [ATTR_IMPLICIT_INPUT, attr.bool(true)],
        ],
        inputDescs: [{ ...desc }],
        outputDescs: [{ ...desc }],
        outputNames: [name],
      }),
    );
    capture.names.push(name);
    capture.dataNodes.push(node);
    const anchor = node.outData[0] as OutDataAnchor;
    this.scope.values.set(name, anchor);
    return anchor;
  }

  async run(proto: IGraphProto, formalParentIndex: boolean): Promise<void> {
    for (const list of [proto.input, proto.output, proto.valueInfo]) {
      for (const v of list ?? []) if (v.name) this.types.set(v.name, readValueType(v.type));
    }
    await this.addInitializers(proto);
    this.addInputs(proto, formalParentIndex);
    const nodes = await this.decodeNodes(proto.node ?? []);
    const shapeOf = (name: string): Shape | undefined => {
      const type = this.types.get(name);
      if (type?.kind === 'tensor') return type.shape;
      const anchor = this.scope.values.get(name);
      return anchor?.node.opDesc.outputDescs[anchor.index]?.shape;
    };
    const transformed = this.ctx.transform(nodes, this.graph.name, shapeOf);
    for (const raw of orderNodes(transformed)) {
      try {
        await this.addNode(raw);
      } catch (error) {
        this.report(error, raw.name, raw.opType, raw.domain);
      }
    }
    this.addOutputs(proto);
  }

  private addConst(name: string, tensor: HostTensor): void {
    const node = this.graph.addNode(
      createOpDesc({
        name: this.uniqueName(name),
        type: CONST,
        attrs: [[ATTR_VALUE, attr.tensor(tensor)]],
        outputDescs: [createTensorDesc(tensor.type, tensor.dims)],
        outputNames: [name],
      }),
    );
    this.scope.values.set(name, node.outData[0] as OutDataAnchor);
  }

  private async addInitializers(proto: IGraphProto): Promise<void> {
    for (const t of proto.initializer ?? []) {
      const name = t.name ?? '';
      if (this.ctx.initializerInputs.has(name)) continue;
      try {
        this.addConst(name, await this.ctx.loader.load(t));
      } catch (error) {
        this.report(error, name, CONST);
      }
    }
    for (const s of proto.sparseInitializer ?? []) {
      const name = s.values?.name ?? '';
      try {
        this.addConst(name, await this.ctx.loader.loadSparse(s));
      } catch (error) {
        this.report(error, name, CONST);
      }
    }
  }

  /** Graph inputs that are not initializers become Data nodes, indexed in order. */
  private addInputs(proto: IGraphProto, formalParentIndex: boolean): void {
    let position = 0;
    let index = 0;
    for (const v of proto.input ?? []) {
      const name = v.name ?? '';
      // subgraph inputs are positional (they match the parent's slots); root inputs count Data nodes only
      if (this.scope.values.has(name)) {
        position++;
        continue;
      }
      const dataIndex = formalParentIndex ? position : index;
      position++;
      index++;
      const desc = this.descOf(name);
      const attrs: [string, ReturnType<typeof attr.int>][] = [[ATTR_INDEX, attr.int(dataIndex)]];
      if (formalParentIndex) attrs.push([ATTR_PARENT_NODE_INDEX, attr.int(dataIndex)]);
      const node = this.graph.addNode(
        createOpDesc({
          name: this.uniqueName(name),
          type: DATA,
          attrs,
          inputDescs: [{ ...desc }],
          outputDescs: [{ ...desc }],
          outputNames: [name],
        }),
      );
      this.scope.values.set(name, node.outData[0] as OutDataAnchor);
    }
    this.graph.attrs.set(ATTR_FORMAL_INPUTS, attr.int(formalParentIndex ? position : index));
  }

  private async decodeNodes(list: readonly INodeProto[]): Promise<RawNode[]> {
    const out: RawNode[] = [];
    let position = 0;
    for (const p of list) {
      const opType = p.opType ?? '';
      const node = rawNode({
        name: p.name || `${opType}_${position}`,
        opType,
        domain: p.domain || 'ai.onnx',
        inputs: [...(p.input ?? [])],
        outputs: [...(p.output ?? [])],
        ...(p.overload ? { overload: p.overload } : {}),
      });
      position++;
      try {
        await decodeAttributes(p.attribute ?? [], node, this.ctx.loader);
        out.push(node);
      } catch (error) {
        this.report(error, node.name, opType, node.domain);
      }
    }
    return out;
  }

  private async addNode(raw: RawNode): Promise<void> {
    if ((raw.opType === 'Constant' && raw.domain === 'ai.onnx') || raw.opType === CONST) {
      const output = raw.outputs[0];
      if (!output) return;
      this.addConst(output, constantValue(raw));
      return;
    }
    // Subgraphs first: they may capture outer values that become extra inputs of this node.
    const subgraphs: { attrName: string; graph: Graph; capture: SubgraphCapture }[] = [];
    for (const [attrName, proto] of raw.graphs) {
      if (this.depth >= MAX_SUBGRAPH_DEPTH) throw new Error(`subgraphs nested deeper than ${MAX_SUBGRAPH_DEPTH}`);
      const sub = new Graph(this.uniqueSubgraphName(`${raw.name}/${attrName}`));
      const child = new GraphImport(sub, this.ctx, this.scope, this.depth + 1);
      await child.run(proto, true);
      subgraphs.push({ attrName, graph: sub, capture: child.captured as SubgraphCapture });
    }
    const implicit: string[] = [];
    for (const s of subgraphs) for (const n of s.capture.names) if (!implicit.includes(n)) implicit.push(n);
    const inputNames = [...raw.inputs, ...implicit];
    const descs = raw.outputs.map((o) => (o ? this.descOf(o) : unknownDesc()));
    // rewritten nodes follow the latest semantics: no `_opset`, so kernels do not apply legacy rules
    const opset = raw.canonical ? undefined : (raw.opset ?? this.ctx.opsets.get(raw.domain));
    const attrs = new Map(raw.attrs);
    if (opset !== undefined) attrs.set(ATTR_OPSET, attr.int(opset));
    if (implicit.length) attrs.set(ATTR_IMPLICIT_INPUTS, attr.int(implicit.length));
    const desc = createOpDesc({
      name: this.uniqueName(raw.name),
      type: raw.opType,
      domain: raw.domain,
      attrs,
      inputDescs: inputNames.map(() => unknownDesc()),
      outputDescs: descs,
      inputNames,
      outputNames: [...raw.outputs],
    });
    const node = this.graph.addNode(desc, { inputs: inputNames.length, outputs: raw.outputs.length });
    inputNames.forEach((name, i) => {
      if (!name) return;
      const producer = this.scope.resolve(name);
      if (!producer) {
        this.report(
          new Error(`input ${i} (${name}) is not produced by any node, graph input or initializer`),
          raw.name,
          raw.opType,
          raw.domain,
        );
        return;
      }
      this.graph.link(producer, node.inData[i] as Node['inData'][number]);
      const pdesc = producer.node.opDesc.outputDescs[producer.index];
      if (pdesc) desc.inputDescs[i] = { ...pdesc };
    });
    for (const s of subgraphs) {
      s.capture.dataNodes.forEach((data, k) => {
        const position = raw.inputs.length + implicit.indexOf(s.capture.names[k] as string);
        data.opDesc.attrs.set(ATTR_PARENT_NODE_INDEX, attr.int(position));
        data.opDesc.attrs.set(ATTR_INDEX, attr.int(formalCount(s.graph) + k));
      });
      desc.attrs.set(s.attrName, attr.graph(s.graph.name));
      desc.subgraphNames.push(s.graph.name);
      this.graph.addSubgraph(s.graph, node);
    }
    raw.outputs.forEach((name, i) => {
      if (!name) return;
      // ONNX graphs are SSA; a second producer of a name wins, but say so
      if (this.scope.values.has(name))
        this.ctx.diagnostics.push(
          diagnostic(
            'TSGE-E3003',
            { reason: `value ${name} is produced twice` },
            this.location(raw.name, raw.opType, raw.domain),
            'warning',
          ),
        );
      this.scope.values.set(name, node.outData[i] as OutDataAnchor);
    });
  }

  private uniqueSubgraphName(base: string): string {
    let name = base;
    for (let i = 1; this.ctx.subgraphNames.has(name); i++) name = `${base}_${i}`;
    this.ctx.subgraphNames.add(name);
    return name;
  }

  private addOutputs(proto: IGraphProto): void {
    const outputs = proto.output ?? [];
    const names = outputs.map((o) => o.name ?? '');
    const net = this.graph.addNode(
      createOpDesc({
        name: this.uniqueName(NET_OUTPUT),
        type: NET_OUTPUT,
        inputDescs: names.map((n) => this.descOf(n)),
        inputNames: names,
      }),
      { inputs: names.length, outputs: 0 },
    );
    names.forEach((name, i) => {
      const producer = this.scope.resolve(name);
      if (!producer) {
        this.report(new Error(`graph output ${name} is not produced by any node, graph input or initializer`), NET_OUTPUT, NET_OUTPUT);
        return;
      }
      this.graph.link(producer, net.inData[i] as Node['inData'][number]);
    });
  }
}

function formalCount(graph: Graph): number {
  const a = graph.attrs.get(ATTR_FORMAL_INPUTS);
  return a?.kind === 'int' ? a.value : 0;
}

/** Imports the main graph of a model into a new root Graph. */
export async function importRootGraph(proto: IGraphProto, ctx: ImportContext): Promise<Graph> {
  const graph = new Graph(proto.name || 'main');
  const importer = new GraphImport(graph, ctx, undefined, 0);
  await importer.run(proto, false);
  return graph;
}
