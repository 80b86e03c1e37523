import type { BuildOptions } from '@tsge/ge';
import { TsgeError } from '@tsge/metadef';
import type { FlowFunctionExport, JsonValue } from './function.js';
import type { FlowGraph } from './graph.js';
import type { ModelSource } from './spec.js';

let pointCounter = 0;
const nextName = (prefix: string): string => `${prefix}_${pointCounter++}`;

function checkCount(what: string, value: number, owner: string): void {
  if (!Number.isSafeInteger(value) || value < 0 || value > 1024)
    throw TsgeError.of('TSGE-E8102', { node: owner, reason: `${what} must be an integer from 0 to 1024, got ${value}` });
}

export interface GraphPpOptions {
  readonly name?: string;
  /** A model file any installed parser reads, an `.om` file, or `.om` bytes. */
  readonly model: string | Uint8Array;
  /** Compile options for model files (`inputShapes`, ...); not used for `.om` files. */
  readonly buildOptions?: BuildOptions;
  /** Kernel threads of this point's executor (default 1: a flow overlaps its points instead). */
  readonly threads?: number;
  /** Input and output counts; read from the model when the point starts, checked against these if given. */
  readonly inputCount: number;
  readonly outputCount: number;
}

/** A model as a process point, run by tsge's executor (GE's GraphPp). */
export class GraphPp {
  readonly kind = 'graph';
  readonly name: string;
  readonly model: ModelSource;
  readonly buildOptions: BuildOptions;
  readonly threads: number;
  readonly inputCount: number;
  readonly outputCount: number;

  constructor(options: GraphPpOptions) {
    this.name = options.name ?? nextName('graph_pp');
    if (typeof options.model === 'string') this.model = { kind: 'file', path: options.model };
    else if (options.model instanceof Uint8Array) this.model = { kind: 'bytes', bytes: options.model };
    else throw TsgeError.of('TSGE-E8102', { node: this.name, reason: 'model must be a file path or .om bytes' });
    this.buildOptions = options.buildOptions ?? {};
    this.threads = options.threads ?? 1;
    if (!Number.isSafeInteger(this.threads) || this.threads < 1)
      throw TsgeError.of('TSGE-E8112', { option: 'threads', reason: `expected a positive integer, got ${options.threads}` });
    checkCount('inputCount', options.inputCount, this.name);
    checkCount('outputCount', options.outputCount, this.name);
    this.inputCount = options.inputCount;
    this.outputCount = options.outputCount;
  }
}

export interface FunctionGroup {
  /** Name of the function in the module's `procs`. */
  readonly name: string;
  /** Point inputs this function takes (aligned together, independently of the other functions). */
  readonly inputs: readonly number[];
}

export interface FunctionPpOptions {
  readonly name?: string;
  /** Module specifier (a package name or a file URL) and export name; loaded when the flow starts. */
  readonly module?: string;
  readonly export?: string;
  /** Or the function itself: runs in process only (flow models and deployments need a module reference). */
  readonly implementation?: FlowFunctionExport;
  /** Passed to `init` once per instance; stored in flow models, so JSON only. */
  readonly params?: Readonly<Record<string, JsonValue>>;
  readonly inputCount: number;
  readonly outputCount: number;
  /** Several functions in one point (GE's multi-function UDF): each takes its own inputs. */
  readonly functions?: readonly FunctionGroup[];
}

/** A user function as a process point (GE's FunctionPp / UDF). */
export class FunctionPp {
  readonly kind = 'function';
  readonly name: string;
  readonly module: string | undefined;
  readonly exportName: string;
  readonly implementation: FlowFunctionExport | undefined;
  readonly params: Readonly<Record<string, JsonValue>>;
  readonly inputCount: number;
  readonly outputCount: number;
  readonly functions: readonly FunctionGroup[] | undefined;

  constructor(options: FunctionPpOptions) {
    this.name = options.name ?? nextName('function_pp');
    const fail = (reason: string): never => {
      throw TsgeError.of('TSGE-E8102', { node: this.name, reason });
    };
    if ((options.module === undefined) === (options.implementation === undefined)) fail('give either module (+ export) or implementation');
    if (options.module !== undefined && (typeof options.module !== 'string' || options.module === ''))
      fail('module must be a module specifier');
    this.module = options.module;
    this.exportName = options.export ?? 'default';
    this.implementation = options.implementation;
    this.params = options.params ?? {};
    try {
      JSON.stringify(this.params);
    } catch {
      fail('params must be JSON');
    }
    checkCount('inputCount', options.inputCount, this.name);
    checkCount('outputCount', options.outputCount, this.name);
    this.inputCount = options.inputCount;
    this.outputCount = options.outputCount;
    if (options.functions !== undefined) {
      const seen = new Set<number>();
      for (const f of options.functions) {
        if (typeof f.name !== 'string' || f.name === '') fail('every function needs a name');
        for (const i of f.inputs) {
          if (!Number.isSafeInteger(i) || i < 0 || i >= this.inputCount)
            fail(`function ${f.name} takes input ${i}, the point has ${this.inputCount}`);
          if (seen.has(i)) fail(`input ${i} is taken by two functions`);
          seen.add(i);
        }
      }
      if (seen.size !== this.inputCount) fail('every input of a multi-function point must be taken by one function');
    }
    this.functions = options.functions;
  }
}

export interface CountBatchOptions {
  readonly name?: string;
  /** Messages per batch: their tensors are concatenated along dimension 0. */
  readonly count: number;
  /** Send a smaller batch when the first waiting message is this old. */
  readonly timeoutMs?: number;
  /** Inputs (each batched on its own, aligned by transaction); outputs are the same number. */
  readonly inputCount?: number;
}

/** Built-in point: concatenates `count` messages along dimension 0 (GE's CountBatch). */
export class CountBatch {
  readonly kind = 'count-batch';
  readonly name: string;
  readonly count: number;
  readonly timeoutMs: number | undefined;
  readonly inputCount: number;
  readonly outputCount: number;

  constructor(options: CountBatchOptions) {
    this.name = options.name ?? nextName('count_batch');
    if (!Number.isSafeInteger(options.count) || options.count < 1)
      throw TsgeError.of('TSGE-E8112', { option: 'count', reason: `expected a positive integer, got ${options.count}` });
    if (options.timeoutMs !== undefined && !(options.timeoutMs > 0))
      throw TsgeError.of('TSGE-E8112', { option: 'timeoutMs', reason: `expected a positive number, got ${options.timeoutMs}` });
    this.count = options.count;
    this.timeoutMs = options.timeoutMs;
    this.inputCount = options.inputCount ?? 1;
    checkCount('inputCount', this.inputCount, this.name);
    this.outputCount = this.inputCount;
  }
}

export interface TimeBatchOptions {
  readonly name?: string;
  /** Everything that arrives within this window after the first message forms one batch. */
  readonly windowMs: number;
  readonly inputCount?: number;
}

/** Built-in point: concatenates what arrives within a time window along dimension 0 (GE's TimeBatch). */
export class TimeBatch {
  readonly kind = 'time-batch';
  readonly name: string;
  readonly windowMs: number;
  readonly inputCount: number;
  readonly outputCount: number;

  constructor(options: TimeBatchOptions) {
    this.name = options.name ?? nextName('time_batch');
    if (!(options.windowMs > 0) || !Number.isFinite(options.windowMs))
      throw TsgeError.of('TSGE-E8112', { option: 'windowMs', reason: `expected a positive number, got ${options.windowMs}` });
    this.windowMs = options.windowMs;
    this.inputCount = options.inputCount ?? 1;
    checkCount('inputCount', this.inputCount, this.name);
    this.outputCount = this.inputCount;
  }
}

/** A nested flow graph as a process point (GE's FlowGraphPp); flattened into the parent when it is compiled. */
export class FlowGraphPp {
  readonly kind = 'flow-graph';
  readonly name: string;
  readonly inputCount: number;
  readonly outputCount: number;

  constructor(
    readonly graph: FlowGraph,
    options: { readonly name?: string } = {},
  ) {
    this.name = options.name ?? nextName('flow_graph_pp');
    this.inputCount = graph.inputs.length;
    this.outputCount = graph.outputs.length;
  }
}

export type ProcessPoint = GraphPp | FunctionPp | CountBatch | TimeBatch | FlowGraphPp;
