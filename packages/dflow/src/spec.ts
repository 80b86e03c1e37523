import type { BuildOptions } from '@tsge/ge';
import type { DataType } from '@tsge/metadef';
import type { JsonValue } from './function.js';

/**
 * The plain description of a flow graph that every deployment runs and a flow model stores:
 * nested flow graphs are already flattened into their parent, functions are module references.
 */
export interface FlowSpecV1 {
  readonly version: 1;
  readonly name: string;
  readonly inputs: readonly FlowInputSpec[];
  readonly nodes: readonly NodeSpec[];
  readonly outputs: readonly EndpointSpec[];
}

export interface FlowInputSpec {
  readonly name: string;
  /** When given, `feed` checks tensors against them (-1: any size). */
  readonly dtype?: DataType | 'bytes';
  readonly shape?: readonly number[];
}

/** Where a node input (or a graph output) comes from. */
export type EndpointSpec =
  | { readonly kind: 'input'; readonly index: number }
  | { readonly kind: 'node'; readonly node: string; readonly output: number };

export type Balance = { readonly kind: 'round-robin' } | { readonly kind: 'key'; readonly from: 'transaction' | 'userData' };

export interface AlignSpec {
  /** A transaction whose inputs are not all there after this long is dropped or failed. */
  readonly timeoutMs: number;
  /** Transactions waiting at once; the oldest is dropped or failed beyond it. */
  readonly maxPending: number;
  /** 'drop': forget it silently (counted); 'error': deliver TSGE-E8109 to fetch. */
  readonly onMissing: 'drop' | 'error';
}

export interface NodeSpec {
  readonly name: string;
  readonly inputs: readonly EndpointSpec[];
  readonly outputCount: number;
  readonly point: PointSpec;
  /** For each input of the point, the node input that feeds it. */
  readonly inputMap: readonly number[];
  /** For each output of the node, the point output that produces it. */
  readonly outputMap: readonly number[];
  readonly instances: number;
  readonly balance: Balance;
  readonly align: AlignSpec | undefined;
  /** Capacity of each input edge's queue (messages). */
  readonly queueDepth: number;
}

/** The model a graph point runs: a file, bytes held in memory, or a submodel of a flow model. */
export type ModelSource =
  | { readonly kind: 'file'; readonly path: string }
  | { readonly kind: 'bytes'; readonly bytes: Uint8Array }
  | { readonly kind: 'submodel'; readonly name: string };

export interface FunctionGroupSpec {
  /** Name in the module's `procs`, or undefined for `proc`. */
  readonly name: string | undefined;
  readonly inputs: readonly number[];
}

export type PointSpec =
  | {
      readonly kind: 'graph';
      readonly name: string;
      readonly model: ModelSource;
      readonly buildOptions: BuildOptions;
      readonly threads: number;
      readonly inputCount: number;
      readonly outputCount: number;
    }
  | {
      readonly kind: 'function';
      readonly name: string;
      readonly module: string;
      readonly export: string;
      readonly params: Readonly<Record<string, JsonValue>>;
      readonly groups: readonly FunctionGroupSpec[];
      readonly inputCount: number;
      readonly outputCount: number;
      /** In-process only: a function object given directly instead of a module reference. */
      readonly inline?: true;
    }
  | {
      readonly kind: 'count-batch';
      readonly name: string;
      readonly count: number;
      readonly timeoutMs: number | undefined;
      readonly inputCount: number;
      readonly outputCount: number;
    }
  | {
      readonly kind: 'time-batch';
      readonly name: string;
      readonly windowMs: number;
      readonly inputCount: number;
      readonly outputCount: number;
    };

/** The alignment groups of a point: sets of point inputs that are processed together. */
export function groupsOf(point: PointSpec): readonly FunctionGroupSpec[] {
  if (point.kind === 'function') return point.groups;
  return [{ name: undefined, inputs: Array.from({ length: point.inputCount }, (_, i) => i) }];
}
