import type { AttrMap, DataType, DeviceV1, EventHandle, StreamTaskV1, StreamWorkV1 } from '@tsge/metadef';
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
  /**
   * The op only renames bytes already in place (a Reshape, Flatten, Squeeze or Unsqueeze whose
   * output the plan put on input 0's bytes; a Concat whose inputs its producers wrote into its
   * output): with planned places (sink semantics) there is nothing to run.
   */
  readonly placedView?: true;
}

/** A task of a prepared stream. */
export type CallTask = StreamTaskV1<KernelCall>;

/** A stream of the model's task list. */
export interface PlanStream {
  readonly streamId: number;
  readonly tasks: readonly CallTask[];
}

/** A plan stream bound to a stream of the device (`DeviceV1.createStream`, once at load). */
export interface PreparedStream extends PlanStream, StreamWorkV1<KernelCall> {}

/** A plan before it is bound to a device: what sizes the device. */
export interface PlanDraft {
  readonly index: number;
  readonly gear: Readonly<Record<string, readonly number[]>> | null;
  readonly arenaBytes: number;
  readonly eventCount: number;
  readonly streams: readonly PlanStream[];
  readonly inputs: readonly TensorRef[];
  readonly outputs: readonly TensorRef[];
  /** True when some tensor is placed at run time (region 'dynamic') or is not device data. */
  readonly dynamic: boolean;
}

/** A plan bound to a device: its streams and events are the device's (tasks name events by index). */
export interface PreparedPlan extends Omit<PlanDraft, 'streams'> {
  readonly streams: readonly PreparedStream[];
  readonly events: readonly EventHandle[];
}

export function bindPlan(draft: PlanDraft, device: Pick<DeviceV1, 'createStream' | 'createEvent'>): PreparedPlan {
  return {
    ...draft,
    streams: draft.streams.map((s) => ({ ...s, stream: device.createStream() })),
    events: Array.from({ length: draft.eventCount }, () => device.createEvent()),
  };
}
