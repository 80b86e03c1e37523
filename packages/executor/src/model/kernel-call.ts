import type { AttrMap, DataType } from '@tsge/metadef';
import type { TensorRef } from '@tsge/om';

/**
 * One kernel task, resolved against the graph: everything a thread needs to run it, and nothing
 * that cannot be structured-cloned to a worker.
 */
export interface KernelCall {
  readonly node: string;
  readonly opType: string;
  readonly domain: string;
  /** Implementation name, or `wasm:<module>:<export>`. */
  readonly kernel: string;
  readonly attrs: AttrMap;
  readonly opsetVersion: number;
  readonly inputs: readonly TensorRef[];
  readonly outputs: readonly TensorRef[];
  readonly workspace?: TensorRef;
  /** Dtype of input 0, used to pick among implementations with dtype limits. */
  readonly inputDtype: DataType | undefined;
}

/** A task of a prepared stream. */
export type CallTask =
  | { readonly kind: 'kernel'; readonly kernel: KernelCall }
  | { readonly kind: 'record'; readonly event: number }
  | { readonly kind: 'wait'; readonly event: number };

export interface PreparedStream {
  readonly streamId: number;
  readonly tasks: readonly CallTask[];
}

export interface PreparedPlan {
  readonly index: number;
  readonly gear: Readonly<Record<string, readonly number[]>> | null;
  readonly arenaBytes: number;
  readonly eventCount: number;
  readonly streams: readonly PreparedStream[];
  readonly inputs: readonly TensorRef[];
  readonly outputs: readonly TensorRef[];
  /** True when some tensor is placed at run time (region 'dynamic') or is not device data. */
  readonly dynamic: boolean;
}
