import type { EventHandle, KernelDeviceKind, RuntimeValue } from '@tsge/metadef';
import type { TensorRef } from '@tsge/om';
import type { PreparedStream } from '../model/kernel-call.js';
import type { SharedCode } from '../model/kernel-set.js';
import type { BoundOutput } from '../run/device-tensor.js';
import type { RegionBases } from '../run/device-tensors.js';
import type { ControlLayout } from './control-block.js';

/** What each sink worker receives once, at load. */
export interface SinkWorkerData {
  /**
   * Per plan: the streams this worker runs (empty when it has none). A dynamic plan runs whole on
   * the slot's driver worker (`slot % workers`) through the host interpreter, so all get all streams.
   */
  readonly plans: readonly {
    readonly streams: readonly PreparedStream[];
    readonly eventCount: number;
    readonly events: readonly EventHandle[];
    readonly dynamic: boolean;
    readonly inputs: readonly TensorRef[];
    readonly outputs: readonly TensorRef[];
  }[];
  /** The model's graph as .air bytes when some plan is dynamic (the host interpreter walks it). */
  readonly graphAir?: Uint8Array;
  readonly controlOffset: number;
  /** Where the control words are (event tables sized by the device's `eventWords`). */
  readonly layout: ControlLayout;
  /**
   * This worker's run-time arena for the run-time-shaped tensors of the dynamic runs it drives
   * (offset -1: none, they live on its heap).
   */
  readonly runtimeArena: { readonly offset: number; readonly bytes: number };
  readonly slotCount: number;
  readonly maxEventCount: number;
  readonly weightsBase: number;
  readonly arenaBases: readonly number[];
  readonly kernelModules: readonly string[];
  readonly wasmModules: readonly { readonly name: string; readonly module: unknown }[];
  /** The kernel libraries' code the calling thread compiled at load, adopted before setup compiles any. */
  readonly compiledCode: SharedCode;
  /** The device's kernel-library kinds, and whether calls take the reference kernel when theirs is not run. */
  readonly kernelKinds: readonly KernelDeviceKind[];
  readonly substitute: boolean;
  readonly profile: boolean;
  /** Offset of the tile job areas (one per worker), or -1 without intra-op parallelism. */
  readonly tileOffset: number;
  /** This worker's workspace region for the kernel library (-1: none). */
  readonly workspaceOffset: number;
  readonly workers: number;
  /** Load the default kernel library even when this worker's own tasks do not need it. */
  readonly loadDefaults: boolean;
}

/**
 * A task timing: node, op, kernel, stream, start and duration in microseconds since the epoch, and
 * for tiles a helper ran, that worker (else the reporting worker ran it).
 */
export type TaskTiming = readonly [
  node: string,
  opType: string,
  kernel: string,
  stream: number,
  start: number,
  duration: number,
  helper?: number,
];

export type SinkWorkerMessage =
  | {
      readonly type: 'error';
      readonly slot: number;
      readonly generation: number;
      readonly code: string;
      readonly message: string;
      readonly node?: string;
    }
  | { readonly type: 'profile'; readonly slot: number; readonly generation: number; readonly timings: readonly TaskTiming[] }
  /** A dynamic run's outputs, from its driver worker. */
  | { readonly type: 'result'; readonly slot: number; readonly generation: number; readonly outputs: readonly RuntimeValue[] };

/** What the calling thread posts to a dynamic run's driver worker with the job. */
export interface DynamicJob {
  readonly slot: number;
  readonly generation: number;
  readonly inputs: readonly RuntimeValue[];
  /** Outputs bound to device tensors (`RunOptions.outputs`), by output index. */
  readonly outputs?: readonly (BoundOutput | undefined)[];
}

/** The worker that runs a dynamic plan's job in `slot`: both sides compute it the same way. */
export const driverOf = (slot: number, workers: number): number => slot % workers;

export function withBases(weights: number, arena: number): RegionBases {
  return { weights, arena };
}
