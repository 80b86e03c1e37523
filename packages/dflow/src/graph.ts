import type { DataType } from '@tsge/metadef';
import { TsgeError } from '@tsge/metadef';
import type { FlowFunctionExport } from './function.js';
import type { ProcessPoint } from './process-points.js';
import type { AlignSpec, Balance, EndpointSpec, FlowInputSpec, FlowSpecV1, NodeSpec, PointSpec } from './spec.js';

let dataCounter = 0;

export interface FlowDataOptions {
  readonly name?: string;
  /** Checked at `feed` when given: a tensor dtype, or 'bytes' for raw bytes. */
  readonly dtype?: DataType | 'bytes';
  /** Checked at `feed` when given (-1: any size). */
  readonly shape?: readonly number[];
}

/** An input of a flow graph (GE's FlowData). */
export class FlowData {
  readonly name: string;
  readonly dtype: DataType | 'bytes' | undefined;
  readonly shape: readonly number[] | undefined;
  /** Creation order: a graph's inputs are fed in this order unless listed explicitly. */
  readonly order = dataCounter++;

  constructor(options: FlowDataOptions = {}) {
    this.name = options.name ?? `data_${this.order}`;
    this.dtype = options.dtype;
    this.shape = options.shape;
  }
}

/** Output `index` of a node: what another node is called on, or a graph output. */
export class FlowOutput {
  constructor(
    readonly node: FlowNode,
    readonly index: number,
  ) {}
}

export type FlowEndpoint = FlowData | FlowOutput;

export interface AlignOptions {
  readonly timeoutMs: number;
  readonly maxPending?: number;
  readonly onMissing?: 'drop' | 'error';
}

export interface FlowNodeOptions {
  readonly name?: string;
  /** Copies of the node's point, each with its own state and executor (default 1). */
  readonly instances?: number;
  /** How aligned inputs are spread over the instances (default round robin). */
  readonly balance?: 'round-robin' | { readonly byKey: 'transaction' | 'userData' };
  /** Wait for every input of a transaction at most this long (default: wait without limit). */
  readonly align?: AlignOptions;
  /** Messages each input edge holds before its producer waits (default 16). */
  readonly queueDepth?: number;
}

let nodeCounter = 0;

/** A node with `inputCount` inputs and `outputCount` outputs and one process point (GE's FlowNode). */
export class FlowNode {
  readonly name: string;
  readonly instances: number;
  readonly balance: Balance;
  readonly align: AlignSpec | undefined;
  readonly queueDepth: number;
  private pointValue: ProcessPoint | undefined;
  private readonly inputMapping = new Map<number, number>();
  private readonly outputMapping = new Map<number, number>();
  private inputsValue: readonly FlowEndpoint[] | undefined;

  constructor(
    readonly inputCount: number,
    readonly outputCount: number,
    options: FlowNodeOptions = {},
  ) {
    this.name = options.name ?? `node_${nodeCounter++}`;
    for (const [what, n] of [
      ['inputCount', inputCount],
      ['outputCount', outputCount],
    ] as const)
      if (!Number.isSafeInteger(n) || n < 0 || n > 1024) this.fail(`${what} must be an integer from 0 to 1024, got ${n}`);
    if (outputCount === 0) this.fail('a node needs at least one output');
    this.instances = options.instances ?? 1;
    if (!Number.isSafeInteger(this.instances) || this.instances < 1 || this.instances > 256)
      throw TsgeError.of('TSGE-E8112', { option: 'instances', reason: `expected an integer from 1 to 256, got ${options.instances}` });
    const balance = options.balance ?? 'round-robin';
    if (balance === 'round-robin') this.balance = { kind: 'round-robin' };
    else if (typeof balance === 'object' && (balance.byKey === 'transaction' || balance.byKey === 'userData'))
      this.balance = { kind: 'key', from: balance.byKey };
    else throw TsgeError.of('TSGE-E8112', { option: 'balance', reason: "expected 'round-robin' or { byKey: 'transaction' | 'userData' }" });
    if (options.align !== undefined) {
      const { timeoutMs, maxPending = 1024, onMissing = 'drop' } = options.align;
      if (!(timeoutMs > 0))
        throw TsgeError.of('TSGE-E8112', { option: 'align.timeoutMs', reason: `expected a positive number, got ${timeoutMs}` });
      if (!Number.isSafeInteger(maxPending) || maxPending < 1)
        throw TsgeError.of('TSGE-E8112', { option: 'align.maxPending', reason: `expected a positive integer, got ${maxPending}` });
      if (onMissing !== 'drop' && onMissing !== 'error')
        throw TsgeError.of('TSGE-E8112', { option: 'align.onMissing', reason: "expected 'drop' or 'error'" });
      this.align = { timeoutMs, maxPending, onMissing };
    }
    this.queueDepth = options.queueDepth ?? 16;
    if (!Number.isSafeInteger(this.queueDepth) || this.queueDepth < 1)
      throw TsgeError.of('TSGE-E8112', { option: 'queueDepth', reason: `expected a positive integer, got ${options.queueDepth}` });
  }

  get point(): ProcessPoint | undefined {
    return this.pointValue;
  }
  get inputs(): readonly FlowEndpoint[] | undefined {
    return this.inputsValue;
  }

  /** Sets the node's process point. */
  addProcessPoint(point: ProcessPoint): this {
    if (this.pointValue) this.fail(`already has process point ${this.pointValue.name}`);
    this.pointValue = point;
    return this;
  }

  /** Feeds input `pointInput` of `point` from this node's input `nodeInput`. */
  mapInput(nodeInput: number, point: ProcessPoint, pointInput: number): this {
    this.checkPoint(point);
    if (!(nodeInput >= 0 && nodeInput < this.inputCount && Number.isInteger(nodeInput)))
      this.fail(`mapInput: node input ${nodeInput} does not exist`);
    if (!(pointInput >= 0 && pointInput < point.inputCount && Number.isInteger(pointInput)))
      this.fail(`mapInput: point ${point.name} has no input ${pointInput}`);
    this.inputMapping.set(pointInput, nodeInput);
    return this;
  }

  /** Makes this node's output `nodeOutput` the output `pointOutput` of `point`. */
  mapOutput(nodeOutput: number, point: ProcessPoint, pointOutput: number): this {
    this.checkPoint(point);
    if (!(nodeOutput >= 0 && nodeOutput < this.outputCount && Number.isInteger(nodeOutput)))
      this.fail(`mapOutput: node output ${nodeOutput} does not exist`);
    if (!(pointOutput >= 0 && pointOutput < point.outputCount && Number.isInteger(pointOutput)))
      this.fail(`mapOutput: point ${point.name} has no output ${pointOutput}`);
    this.outputMapping.set(nodeOutput, pointOutput);
    return this;
  }

  /** Connects the node to its inputs (one endpoint per node input) and returns its outputs. */
  call(...inputs: FlowEndpoint[]): FlowOutput[] {
    if (this.inputsValue) this.fail('is already connected (call a node once)');
    if (inputs.length !== this.inputCount) this.fail(`takes ${this.inputCount} inputs, called with ${inputs.length}`);
    inputs.forEach((input, i) => {
      if (!(input instanceof FlowData) && !(input instanceof FlowOutput)) this.fail(`input ${i} is not a FlowData or a node output`);
    });
    this.inputsValue = inputs;
    return Array.from({ length: this.outputCount }, (_, i) => new FlowOutput(this, i));
  }

  /** For each point input, the node input feeding it; for each node output, the point output. */
  resolvedMaps(): { inputMap: number[]; outputMap: number[] } {
    const point = this.pointValue ?? this.fail('has no process point');
    const inputMap: number[] = [];
    for (let i = 0; i < point.inputCount; i++) {
      const mapped = this.inputMapping.get(i) ?? (this.inputMapping.size === 0 && point.inputCount === this.inputCount ? i : undefined);
      if (mapped === undefined) this.fail(`input ${i} of point ${point.name} is not mapped (mapInput)`);
      inputMap.push(mapped as number);
    }
    const outputMap: number[] = [];
    for (let o = 0; o < this.outputCount; o++) {
      const mapped = this.outputMapping.get(o) ?? (this.outputMapping.size === 0 && point.outputCount === this.outputCount ? o : undefined);
      if (mapped === undefined) this.fail(`output ${o} is not mapped to an output of point ${point.name} (mapOutput)`);
      outputMap.push(mapped as number);
    }
    return { inputMap, outputMap };
  }

  private checkPoint(point: ProcessPoint): void {
    if (point !== this.pointValue) this.fail(`point ${point?.name} is not this node's process point (addProcessPoint first)`);
  }

  private fail(reason: string): never {
    throw TsgeError.of('TSGE-E8102', { node: this.name, reason });
  }
}

export interface FlowGraphOptions {
  readonly name?: string;
  /** The graph's inputs in feed order (default: every FlowData reached, in creation order). */
  readonly inputs?: readonly FlowData[];
}

/** A compiled flow graph: its plain spec, and the in-process function objects by node name. */
export interface CompiledFlow {
  readonly spec: FlowSpecV1;
  readonly inline: ReadonlyMap<string, FlowFunctionExport>;
}

/** A flow graph, defined by its outputs (GE's FlowGraph). */
export class FlowGraph {
  readonly name: string;
  readonly inputs: readonly FlowData[];
  readonly nodes: readonly FlowNode[];

  constructor(
    readonly outputs: readonly FlowOutput[],
    options: FlowGraphOptions = {},
  ) {
    this.name = options.name ?? 'flow_graph';
    const fail = (reason: string): never => {
      throw TsgeError.of('TSGE-E8101', { graph: this.name, reason });
    };
    if (outputs.length === 0) fail('it has no outputs');
    outputs.forEach((o, i) => {
      if (!(o instanceof FlowOutput)) fail(`output ${i} is not a node output`);
    });
    // Depth-first from the outputs: collect nodes in dependency order, detect cycles.
    const order: FlowNode[] = [];
    const state = new Map<FlowNode, 'visiting' | 'done'>();
    const data = new Set<FlowData>();
    const visit = (node: FlowNode): void => {
      const s = state.get(node);
      if (s === 'done') return;
      if (s === 'visiting') fail(`node ${node.name} is on a cycle`);
      state.set(node, 'visiting');
      const inputs = node.inputs ?? fail(`node ${node.name} is not connected (call it on its inputs)`);
      for (const input of inputs) {
        if (input instanceof FlowData) data.add(input);
        else visit(input.node);
      }
      state.set(node, 'done');
      order.push(node);
    };
    for (const o of outputs) visit(o.node);
    const names = new Set<string>();
    for (const n of order) {
      if (names.has(n.name)) fail(`two nodes are named ${n.name}`);
      names.add(n.name);
    }
    if (options.inputs) {
      for (const d of data) if (!options.inputs.includes(d)) fail(`input ${d.name} is used but not listed in inputs`);
      this.inputs = options.inputs;
    } else this.inputs = [...data].sort((a, b) => a.order - b.order);
    this.nodes = order;
  }

  /** The plain spec every deployment runs, with nested flow graphs flattened. */
  compile(): CompiledFlow {
    const inline = new Map<string, FlowFunctionExport>();
    const nodes: NodeSpec[] = [];
    const inputs: FlowInputSpec[] = this.inputs.map((d) => ({
      name: d.name,
      ...(d.dtype !== undefined ? { dtype: d.dtype } : {}),
      ...(d.shape !== undefined ? { shape: [...d.shape] } : {}),
    }));
    const outerInputs = new Map<FlowData, EndpointSpec>(this.inputs.map((d, index) => [d, { kind: 'input', index }]));
    const resolveOutput = flattenInto(this, '', outerInputs, nodes, inline);
    const outputs = this.outputs.map((o) => resolveOutput(o));
    for (const o of outputs)
      if (o.kind === 'input') throw TsgeError.of('TSGE-E8101', { graph: this.name, reason: 'an output is a graph input' });
    return { spec: { version: 1, name: this.name, inputs, nodes, outputs }, inline };
  }
}

/**
 * Adds the nodes of `graph` (names prefixed) to `nodes`, with its inputs bound to `boundInputs`;
 * returns how to resolve one of its node outputs to an endpoint of the flattened graph.
 */
function flattenInto(
  graph: FlowGraph,
  prefix: string,
  boundInputs: ReadonlyMap<FlowData, EndpointSpec>,
  nodes: NodeSpec[],
  inline: Map<string, FlowFunctionExport>,
): (output: FlowOutput) => EndpointSpec {
  const nestedOutputs = new Map<FlowNode, (nodeOutput: number) => EndpointSpec>();
  const resolve = (endpoint: FlowEndpoint): EndpointSpec => {
    if (endpoint instanceof FlowData) {
      const bound = boundInputs.get(endpoint);
      if (!bound) throw TsgeError.of('TSGE-E8101', { graph: graph.name, reason: `input ${endpoint.name} is not bound` });
      return bound;
    }
    const nested = nestedOutputs.get(endpoint.node);
    if (nested) return nested(endpoint.index);
    return { kind: 'node', node: prefix + endpoint.node.name, output: endpoint.index };
  };
  for (const node of graph.nodes) {
    const point = node.point as ProcessPoint;
    const { inputMap, outputMap } = node.resolvedMaps();
    const nodeInputs = (node.inputs as readonly FlowEndpoint[]).map(resolve);
    const name = prefix + node.name;
    if (point.kind === 'flow-graph') {
      const inner = point.graph;
      const bound = new Map<FlowData, EndpointSpec>(inner.inputs.map((d, i) => [d, nodeInputs[inputMap[i] as number] as EndpointSpec]));
      const innerResolve = flattenInto(inner, `${name}/`, bound, nodes, inline);
      nestedOutputs.set(node, (nodeOutput) => innerResolve(inner.outputs[outputMap[nodeOutput] as number] as FlowOutput));
      continue;
    }
    if (point.kind === 'function' && point.implementation !== undefined) inline.set(name, point.implementation);
    nodes.push({
      name,
      inputs: nodeInputs,
      outputCount: node.outputCount,
      point: pointSpec(point),
      inputMap,
      outputMap,
      instances: node.instances,
      balance: node.balance,
      align: node.align,
      queueDepth: node.queueDepth,
    });
  }
  return resolve as (output: FlowOutput) => EndpointSpec;
}

function pointSpec(point: Exclude<ProcessPoint, { kind: 'flow-graph' }>): PointSpec {
  switch (point.kind) {
    case 'graph':
      return {
        kind: 'graph',
        name: point.name,
        model: point.model,
        buildOptions: point.buildOptions,
        threads: point.threads,
        inputCount: point.inputCount,
        outputCount: point.outputCount,
      };
    case 'function':
      return {
        kind: 'function',
        name: point.name,
        module: point.module ?? '',
        export: point.exportName,
        params: point.params,
        groups: point.functions
          ? point.functions.map((f) => ({ name: f.name, inputs: [...f.inputs] }))
          : [{ name: undefined, inputs: Array.from({ length: point.inputCount }, (_, i) => i) }],
        inputCount: point.inputCount,
        outputCount: point.outputCount,
        ...(point.implementation !== undefined ? { inline: true as const } : {}),
      };
    case 'count-batch':
      return {
        kind: 'count-batch',
        name: point.name,
        count: point.count,
        timeoutMs: point.timeoutMs,
        inputCount: point.inputCount,
        outputCount: point.outputCount,
      };
    case 'time-batch':
      return {
        kind: 'time-batch',
        name: point.name,
        windowMs: point.windowMs,
        inputCount: point.inputCount,
        outputCount: point.outputCount,
      };
  }
}
