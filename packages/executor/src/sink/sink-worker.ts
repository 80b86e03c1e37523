// The worker side of sink mode: binds its task lists once, then sleeps on the doorbell and runs its
// streams of every job posted to a slot.
import type {
  DeviceWorkerContextV1,
  EventTableV1,
  KernelContextV1,
  KernelRegistry,
  Node,
  ParallelRunnerV1,
  RuntimeValue,
} from '@tsge/metadef';
import { TsgeError, isDeviceError, parseAir } from '@tsge/metadef';
import { type HostModel, runOnHost } from '../host/host-runner.js';
import type { KernelCall, PreparedPlan } from '../model/kernel-call.js';
import { nodesByName } from '../model/prepare-plans.js';
import { type BoundKernel, bindKernel, instantiateWasmKernels, loadKernelRegistry } from '../model/kernel-set.js';
import { runRefCall } from '../run/ref-call.js';
import { type ControlLayout, DOORBELL, SHUTDOWN, SLOT, slotWord } from './control-block.js';
import { type DynamicJob, type SinkWorkerData, type SinkWorkerMessage, type TaskTiming, driverOf } from './sink-protocol.js';
import { spinThenWait } from './spin-wait.js';
import { type HelperTiles, type TilePool, createTilePool } from './tile-pool.js';

type WorkerContext = DeviceWorkerContextV1<SinkWorkerData>;
/** What a stream task throws when another thread failed the run: the run loop stops quietly. */
class RunAborted extends Error {}

const bound = new Map<KernelCall, BoundKernel>();
/** The timings of the job running on this worker (profiling): helpers' tiles go there too. */
let jobTimings: TaskTiming[] | undefined;
let tiles: TilePool | undefined;
let parallel: ParallelRunnerV1 | undefined;
/** The host interpreter's model for dynamic plans (when the model has some). */
let hostModel: HostModel | undefined;
/** Dynamic jobs posted to this worker, by `slot:generation`, until their doorbell comes. */
const jobs = new Map<string, DynamicJob>();
// kernel contexts per slot, valid while the memory buffer stays the same (sink memory never grows)
const contexts = new Map<number, { buffer: ArrayBufferLike; cache: Map<KernelCall, KernelContextV1> }>();
function cacheOf(slot: number, buffer: ArrayBufferLike): Map<KernelCall, KernelContextV1> {
  let entry = contexts.get(slot);
  if (!entry || entry.buffer !== buffer) {
    entry = { buffer, cache: new Map() };
    contexts.set(slot, entry);
  }
  return entry.cache;
}

export async function setup(context: WorkerContext): Promise<void> {
  const calls = context.data.plans.flatMap((plan) =>
    plan.streams.flatMap((stream) => stream.tasks.flatMap((task) => (task.kind === 'kernel' ? [task.kernel] : []))),
  );
  const { registry, runTile, workspace, adoptCode } = await loadKernelRegistry(
    context.data.kernelModules,
    calls,
    context.data.loadDefaults,
    context.data.kernelKinds,
  );
  adoptCode(context.data.compiledCode);
  if (workspace && context.data.workspaceOffset >= 0) workspace.bind(context.memory, context.data.workspaceOffset, workspace.bytes);
  if (runTile && context.data.tileOffset >= 0) {
    const words = new Int32Array(context.memory.buffer, context.data.controlOffset, 2);
    tiles = createTilePool({
      memory: context.memory,
      offset: context.data.tileOffset,
      workers: context.data.workers,
      runTile,
      wake: () => {
        Atomics.add(words, DOORBELL, 1);
        Atomics.notify(words, DOORBELL);
      },
      ...(context.data.profile
        ? {
            helped: (tileFunction: string, helpers: readonly HelperTiles[]) => {
              for (const h of helpers) jobTimings?.push([tileFunction, 'tile', tileFunction, -1, h.start, h.end - h.start, h.worker]);
            },
          }
        : {}),
    });
    parallel = tiles.runnerFor(context.index);
  }
  const wasmKernels = await instantiateWasmKernels(context.data.wasmModules, (module) => context.instantiateKernelModule(module));
  for (const plan of context.data.plans) {
    for (const stream of plan.streams) {
      for (const task of stream.tasks) {
        if (task.kind !== 'kernel') continue;
        const kernel = bindKernel(task.kernel, registry, wasmKernels, context.data.substitute);
        if (!kernel) throw new Error(`no kernel ${task.kernel.kernel} for ${task.kernel.opType} at node ${task.kernel.node}`);
        bound.set(task.kernel, kernel);
      }
    }
  }
  if (context.data.graphAir) hostModel = hostModelOf(context, registry);
}

/**
 * The graph decoded from .air for the host interpreter. Run-time-shaped tensors go to this
 * worker's run-time arena in device memory (reserved at load, reused by every run), so the device
 * kernels and their tiles take them; without an arena they live on this worker's heap.
 */
function hostModelOf(context: WorkerContext, registry: KernelRegistry): HostModel {
  const { graph, diagnostics } = parseAir(context.data.graphAir as Uint8Array);
  if (!graph) throw new Error(`the model graph does not decode on the worker: ${diagnostics.map((d) => d.message).join('; ')}`);
  const nodes: Map<string, Node> = nodesByName(graph);
  const { offset, bytes } = context.data.runtimeArena;
  const inArena = offset >= 0;
  const noScratch = (): never => {
    throw new Error('this worker has no run-time arena');
  };
  return {
    graph,
    nodes,
    registry,
    bound,
    device: {
      memory: context.memory,
      shared: inArena,
      scratch: inArena ? context.arena(offset, bytes) : { allocate: noScratch, free: noScratch },
      view: (dtype, at, count) => context.view(dtype, at, count),
      runStreams: async (streams, events, launch) => context.runLocalStreams(streams, events, launch),
      runStreamsSync: (streams, events, launch) => context.runLocalStreams(streams, events, launch),
    },
    scratchFull: (call, output, needed) =>
      TsgeError.of(
        'TSGE-E6210',
        { node: call.node, output, needed, worker: context.index, bytes },
        { node: call.node, opType: call.opType, domain: call.domain },
      ),
  };
}

export async function loop(context: WorkerContext): Promise<void> {
  const data = context.data;
  const layout = data.layout;
  const control = (): Int32Array => new Int32Array(context.memory.buffer, data.controlOffset, layout.totalWords);
  const lastSeen = new Array<number>(data.slotCount).fill(0);
  let words = control();
  for (;;) {
    const bell = Atomics.load(words, DOORBELL);
    if (Atomics.load(words, SHUTDOWN) !== 0) return;
    let worked = false;
    // Jobs run in the order they were posted (generations grow across slots), the same order on
    // every worker: a worker then only ever waits on parts of its current job, which workers still
    // behind it reach without waiting on anything later, so concurrent runs cannot deadlock.
    for (;;) {
      let next = -1;
      let nextGeneration = 0;
      for (let slot = 0; slot < data.slotCount; slot++) {
        const generation = Atomics.load(words, slotWord(layout, slot, SLOT.generation));
        if (generation !== lastSeen[slot] && (next < 0 || generation < nextGeneration)) {
          next = slot;
          nextGeneration = generation;
        }
      }
      if (next < 0) break;
      lastSeen[next] = nextGeneration;
      worked = true;
      if (words.buffer !== context.memory.buffer) words = control();
      const plan = data.plans[Atomics.load(words, slotWord(layout, next, SLOT.plan))];
      if (plan?.dynamic) {
        if (driverOf(next, data.workers) === context.index) await runDynamicJob(context, words, layout, next, nextGeneration);
      } else runJob(context, words, layout, next, nextGeneration);
    }
    if (tiles?.help(context.index)) worked = true;
    if (!worked) spinThenWait(words, DOORBELL, bell, () => tiles?.help(context.index) === true);
  }
}

function runJob(context: WorkerContext, words: Int32Array, layout: ControlLayout, slot: number, generation: number): void {
  const data = context.data;
  const plan = data.plans[Atomics.load(words, slotWord(layout, slot, SLOT.plan))];
  if (!plan || plan.streams.length === 0) return;
  const errorWord = slotWord(layout, slot, SLOT.error);
  const eventStart = slotWord(layout, slot, SLOT.events);
  const events = withDoorbell(
    context.eventTable(words.subarray(eventStart, eventStart + layout.slotWords - SLOT.events), generation, plan.eventCount),
    words,
    context.index,
  );
  const aborted = (): boolean => Atomics.load(words, errorWord) !== 0;
  const place = {
    views: context,
    bases: { weights: data.weightsBase, arena: data.arenaBases[slot] as number },
    memory: context.memory,
    cache: cacheOf(slot, context.memory.buffer),
    ...(parallel ? { parallel } : {}),
  };
  const timings: TaskTiming[] = [];
  jobTimings = data.profile ? timings : undefined;
  const now = (): number => (performance.timeOrigin + performance.now()) * 1000;
  try {
    const streamIds = new Map(plan.streams.map((s) => [s.stream.id, s.streamId]));
    context.runStreams(
      plan.streams,
      events,
      (call, stream) => {
        if (aborted()) throw new RunAborted();
        const start = data.profile ? now() : 0;
        runRefCall(call, bound.get(call) as BoundKernel, place);
        const streamId = streamIds.get(stream.id) ?? stream.id;
        if (data.profile) timings.push([call.node, call.opType, call.kernel, streamId, start, now() - start]);
      },
      aborted,
    );
  } catch (error) {
    if (!(error instanceof RunAborted) && !isDeviceError(error, 'aborted')) {
      const message: SinkWorkerMessage = {
        type: 'error',
        slot,
        generation,
        code: TsgeError.isInstance(error) ? error.code : 'TSGE-E6007',
        message: error instanceof Error ? error.message : String(error),
      };
      context.post(message);
      Atomics.store(words, errorWord, 1);
      events.wakeAll();
    }
  }
  if (data.profile) context.post({ type: 'profile', slot, generation, timings } satisfies SinkWorkerMessage);
  if (Atomics.sub(words, slotWord(layout, slot, SLOT.remaining), 1) === 1) {
    Atomics.store(words, slotWord(layout, slot, SLOT.done), generation);
    Atomics.notify(words, slotWord(layout, slot, SLOT.done));
  }
}

/** The inputs the calling thread posted for this job (posted before its doorbell rang). */
function takeJob(context: WorkerContext, words: Int32Array, slot: number, generation: number): DynamicJob {
  const key = `${slot}:${generation}`;
  for (;;) {
    if (Atomics.load(words, SHUTDOWN) !== 0) throw new Error('the executor was released');
    const job = jobs.get(key);
    if (job) {
      jobs.delete(key);
      return job;
    }
    const posted = context.receive() as DynamicJob | undefined;
    if (posted) jobs.set(`${posted.slot}:${posted.generation}`, posted);
  }
}

/**
 * A dynamic plan's job: the host interpreter runs it here, task by task with run-time shapes, its
 * kernels splitting work into tiles the other workers help with; the outputs go back as a message.
 */
async function runDynamicJob(
  context: WorkerContext,
  words: Int32Array,
  layout: ControlLayout,
  slot: number,
  generation: number,
): Promise<void> {
  const data = context.data;
  const plan = data.plans[Atomics.load(words, slotWord(layout, slot, SLOT.plan))];
  const job = takeJob(context, words, slot, generation);
  const timings: TaskTiming[] = [];
  jobTimings = data.profile ? timings : undefined;
  const epoch = (ms: number): number => (performance.timeOrigin + ms) * 1000;
  const errorWord = slotWord(layout, slot, SLOT.error);
  try {
    if (!hostModel || !plan) throw new Error('this worker has no graph for dynamic plans');
    const prepared = { ...plan, index: 0, gear: null, arenaBytes: 0 } as PreparedPlan;
    const outputs: RuntimeValue[] = await runOnHost(hostModel, prepared, {
      bases: { weights: data.weightsBase, arena: data.arenaBases[slot] as number },
      inputs: job.inputs,
      ...(job.outputs ? { outputs: job.outputs } : {}),
      ...(parallel ? { parallel } : {}),
      ...(data.profile
        ? {
            observe: (call, stream, start, end) =>
              timings.push([call.node, call.opType, call.kernel, stream, epoch(start), (end - start) * 1000]),
          }
        : {}),
    });
    context.post({ type: 'result', slot, generation, outputs } satisfies SinkWorkerMessage);
  } catch (error) {
    context.post({
      type: 'error',
      slot,
      generation,
      code: TsgeError.isInstance(error) ? error.code : 'TSGE-E6007',
      message: error instanceof Error ? error.message : String(error),
    } satisfies SinkWorkerMessage);
    Atomics.store(words, errorWord, 1);
  }
  if (data.profile) context.post({ type: 'profile', slot, generation, timings } satisfies SinkWorkerMessage);
  Atomics.store(words, slotWord(layout, slot, SLOT.remaining), 0);
  Atomics.store(words, slotWord(layout, slot, SLOT.done), generation);
  Atomics.notify(words, slotWord(layout, slot, SLOT.done));
}

/**
 * The job's event table, with waits that help other workers' tiles: a worker blocked on another
 * stream's event takes tiles instead of sleeping, and sleeps on the doorbell, which both event
 * records and tile jobs ring, so neither can be missed.
 */
function withDoorbell(events: EventTableV1, words: Int32Array, self: number): EventTableV1 {
  const ring = (): void => {
    Atomics.add(words, DOORBELL, 1);
    Atomics.notify(words, DOORBELL);
  };
  return {
    isSet: (event) => events.isSet(event),
    sequence: () => events.sequence(),
    record(event) {
      events.record(event);
      ring();
    },
    wakeAll() {
      events.wakeAll();
      ring();
    },
    sleep(sequence) {
      const bell = Atomics.load(words, DOORBELL);
      if (events.sequence() !== sequence) return;
      if (tiles?.help(self)) return;
      spinThenWait(words, DOORBELL, bell, () => events.sequence() !== sequence || tiles?.help(self) === true);
    },
  };
}

/** Drops what setup kept for the released model: the thread may serve another (spare-threads.ts). */
export function teardown(): void {
  bound.clear();
  jobs.clear();
  contexts.clear();
  jobTimings = undefined;
  tiles = undefined;
  parallel = undefined;
  hostModel = undefined;
}
