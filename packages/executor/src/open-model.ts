import type {
  DataType,
  DeviceV1,
  DeviceWorkersV1,
  Diagnostic,
  HostTensor,
  KernelContextV1,
  KernelRegistry,
  Node,
  RuntimeValue,
} from '@tsge/metadef';
import { DTYPE_BYTES, TsgeError, diagnostic, isDataType, isHostTensor, serializeAir, shapeToString } from '@tsge/metadef';
import { type OmModel, tasksCarryAttributes } from '@tsge/om';
import { workerModuleUrl } from '@tsge/runtime';
import { selectDevice } from './device/select-device.js';
import { checkFeeds } from './feeds.js';
import { type TaskObserver, copyValue, runOnHost } from './host/host-runner.js';
import { type KernelCall, type PreparedPlan, bindPlan } from './model/kernel-call.js';
import { type BoundKernel, bindKernel, instantiateWasmKernels, loadKernelRegistry } from './model/kernel-set.js';
import { nodesByName, preparePlans } from './model/prepare-plans.js';
import { selectPlan } from './model/select-plan.js';
import type {
  ChromeTrace,
  ExecutionMode,
  Executor,
  Feed,
  LoadModelOptions,
  RunOptions,
  RunSyncOptions,
  TensorMetadata,
  TraceEvent,
  TraceMetadata,
} from './options.js';
import { type BoundOutput, type DeviceTensor, checkBound, isDeviceTensor } from './run/device-tensor.js';
import { type RegionBases, tensorAt, writeInto } from './run/device-tensors.js';
import { type Deadline, createDeadline } from './run/deadline.js';
import { warmUpFeeds } from './run/warm-up.js';
import { sinkHandlerUrl } from './sink/sink-handler.js';
import { asRunError } from './run/kernel-failure.js';
import { runRefCall } from './run/ref-call.js';
import { namedOutputs, runSyncOnHost } from './run/run-sync.js';
import { controlLayout, signalShutdown } from './sink/control-block.js';
import { tileAreaBytes } from './sink/tile-pool.js';
import { type SinkDispatcher, assignStreams, createSinkDispatcher } from './sink/sink-dispatcher.js';
import type { SinkWorkerData } from './sink/sink-protocol.js';
import { createSlotPool } from './slot-pool.js';

const GIB = 1024 * 1024 * 1024;
/** Profiling keeps at most this many task events (about 100 MB of trace JSON). */
const MAX_TRACE_EVENTS = 500_000;
const DEFAULT_DYNAMIC_LIMIT = GIB;
/** Below this much activation memory a model runs on the calling thread (see `smallModelBytes`). */
const SMALL_MODEL_BYTES = 1024 * 1024;
/** Default upper bound of one worker's run-time arena (see `runtimeArenaBytes`). */
const RUNTIME_ARENA_BYTES = 256 * 1024 * 1024;

const alignUp = (value: number, alignment: number): number => Math.ceil(value / alignment) * alignment;

/**
 * Binds a read model to a CPU device and returns its executor. Memory layout:
 * `[weights | arena per concurrent run | control words | tile areas | thread workspaces]`, all
 * placed once here.
 */
export async function openModel(model: OmModel, options: LoadModelOptions = {}): Promise<Executor> {
  checkMode(options.mode, 'LoadModelOptions.mode');
  // MODEL_DEF is decoded only if some task needs its node (subgraphs, tensor attributes, host runs)
  let nodeMap: Map<string, Node> | undefined;
  const nodes = (): Map<string, Node> => {
    nodeMap ??= nodesByName(model.graph);
    return nodeMap;
  };
  // WebAssembly bytes from a file run over device memory unchecked: only when the user trusts the file
  if (model.kernels.length > 0 && options.allowModelWasm !== true) {
    throw TsgeError.of('TSGE-E6081', { count: model.kernels.length, names: model.kernels.map((k) => JSON.stringify(k.name)).join(', ') });
  }
  const prepared = preparePlans(model, nodes);
  if (prepared.diagnostics.length > 0) throw TsgeError.fromDiagnostics(prepared.diagnostics);
  const drafts = prepared.plans;
  const factory = selectDevice(model.header.target, options);
  // a model compiled for another device's kernels runs with the op's reference kernels where they fit
  const substitute = !factory.targets.includes(model.header.target);
  const kernelModules = (options.kernelModules ?? []).map((m) => (m instanceof URL ? m.href : m));
  const calls = drafts.flatMap((plan) =>
    plan.streams.flatMap((stream) => stream.tasks.flatMap((task) => (task.kind === 'kernel' ? [task.kernel] : []))),
  );
  // subgraphs are interpreted with whatever kernel fits, so models with subgraphs need the defaults
  const selfContained = tasksCarryAttributes(model.taskInfo);
  const { registry, runTile, workspace, shareCode } = await loadKernelRegistry(
    kernelModules,
    calls,
    !selfContained && model.graph.subgraphs.size > 0,
    factory.kernelKinds,
  );
  // kernels that split their work into tiles want every thread, even for a single stream
  const parallelKernels =
    runTile !== undefined &&
    calls.some((call) => {
      const kernel = bindKernel(call, registry, new Map(), substitute);
      return kernel?.kind === 'js' && kernel.kernel.parallel === true;
    });

  const anyDynamic = drafts.some((p) => p.dynamic);
  const threads = Math.max(1, Math.floor(options.threads ?? factory.defaultThreads?.() ?? 1));
  const small = Math.max(0, ...drafts.map((p) => p.arenaBytes)) < (options.smallModelBytes ?? SMALL_MODEL_BYTES);
  const slotCount = Math.max(1, Math.floor(options.maxConcurrentRuns ?? 2));
  // a dynamic model's arena says little of its work (most tensors get memory at run time)
  const wantWorkers = (options.mode ?? 'sink') === 'sink' && threads > 1 && (anyDynamic || !small);
  // a worker runs whole streams (or, for dynamic plans, whole runs), so without tiles more workers
  // than streams (concurrent runs) would only idle
  const busy = Math.max(...drafts.map((p) => p.streams.length), anyDynamic ? slotCount : 1);
  const workerCount = parallelKernels ? threads : Math.max(1, Math.min(threads, busy));
  // with a tile library loaded, any idle worker can help a kernel that splits its work
  const tileBytes = wantWorkers && runTile !== undefined && workerCount > 1 ? workerCount * tileAreaBytes(workerCount) : 0;
  // one workspace region per thread that runs kernels: the calling thread (region 0) and each worker
  const workspaceBytes = workspace ? workspace.bytes * (1 + (wantWorkers ? workerCount : 0)) : 0;

  // size device memory before anything is placed
  const arenaBytes = alignUp(Math.max(64, ...drafts.map((p) => p.arenaBytes)), 64);
  const maxEventCount = Math.max(0, ...drafts.map((p) => p.eventCount));
  // the control words (event tables sized by the device) are a few hundred bytes, placed once the
  // device exists: they are not counted here
  const staticBytes =
    64 + alignUp(Math.max(64, model.weights.byteLength), 64) + slotCount * arenaBytes + alignUp(tileBytes, 64) + workspaceBytes;
  const limit = options.maxMemoryBytes ?? (anyDynamic ? Math.max(DEFAULT_DYNAMIC_LIMIT, staticBytes * 2) : staticBytes + 65536);
  if (staticBytes > Math.min(limit, 4 * GIB)) throw TsgeError.of('TSGE-E6005', { needed: staticBytes, limit: Math.min(limit, 4 * GIB) });
  let device: DeviceV1;
  try {
    device = factory.create({
      threads: wantWorkers ? workerCount : 1,
      initialBytes: staticBytes,
      maximumBytes: Math.min(limit, 4 * GIB),
      // shared memory keeps views valid when run-time tensors grow it; generated kernels import
      // the memory as shared, so a model with KERNELS always gets shared memory
      shareMemory: wantWorkers || anyDynamic || model.kernels.length > 0,
    });
  } catch (error) {
    // the engine could not reserve the memory
    throw TsgeError.of('TSGE-E6005', { needed: staticBytes, limit: Math.min(limit, 4 * GIB) }, undefined, error);
  }

  // workers need a device that can start them over shared memory; else everything runs here
  const useWorkers = wantWorkers && device.shared && device.startWorkers !== undefined;
  const memoryLimit = Math.min(limit, 4 * GIB);
  try {
    // streams and events are the device's: one stream per plan stream, one event per plan event
    const plans = drafts.map((draft) => bindPlan(draft, device));
    const layout = controlLayout(slotCount, maxEventCount, (count) => device.eventWords(count));
    const weightsBase = device.allocate(Math.max(64, model.weights.byteLength));
    const arenaBases = Array.from({ length: slotCount }, () => device.allocate(arenaBytes));
    const controlOffset = device.allocate(layout.totalWords * 4);
    // a dynamic run's tensors shaped at run time go to its driver worker's run-time arena
    const drivers = useWorkers && anyDynamic ? Math.min(slotCount, device.threadCount) : 0;
    const runtimeArenaBytes = drivers > 0 ? runtimeArenaSize(options.runtimeArenaBytes, memoryLimit - staticBytes, drivers) : 0;
    const runtimeArenas = Array.from({ length: drivers }, () => {
      try {
        return device.allocate(runtimeArenaBytes);
      } catch (error) {
        const needed = staticBytes + drivers * runtimeArenaBytes;
        throw TsgeError.of('TSGE-E6211', { workers: drivers, bytes: runtimeArenaBytes, needed, limit: memoryLimit }, undefined, error);
      }
    });
    const tileOffset = useWorkers && tileBytes > 0 ? device.allocate(tileBytes) : -1;
    const workspaceOffset = workspace ? device.allocate(useWorkers ? workspaceBytes : workspace.bytes, 64) : -1;
    if (workspace) workspace.bind(device.memory, workspaceOffset, workspace.bytes);

    const wasmModules: { name: string; module: unknown }[] = [];
    let wasmKernels: Awaited<ReturnType<typeof instantiateWasmKernels>>;
    try {
      for (const k of model.kernels) wasmModules.push({ name: k.name, module: await device.loadKernelModule(k.bytes) });
      wasmKernels = await instantiateWasmKernels(wasmModules, (module) => device.instantiateKernelModule(module));
    } catch (error) {
      const reason = `a KERNELS module does not compile or link: ${error instanceof Error ? error.message : String(error)}`;
      throw TsgeError.of('TSGE-E2006', { format: 'om', reason }, undefined, error);
    }

    // bind every task on this thread: a missing kernel fails the load, naming node and op
    const bound = new Map<KernelCall, BoundKernel>();
    const missing: Diagnostic[] = [];
    for (const plan of plans) {
      for (const stream of plan.streams) {
        for (const task of stream.tasks) {
          if (task.kind !== 'kernel') continue;
          const call = task.kernel;
          const kernel = bindKernel(call, registry, wasmKernels, substitute);
          if (kernel) bound.set(call, kernel);
          else if (substitute && !call.kernel.startsWith('wasm:')) {
            missing.push(
              diagnostic(
                'TSGE-E6202',
                {
                  node: call.node,
                  kernel: call.kernel,
                  target: model.header.target,
                  device: factory.name,
                  reason: 'the reference kernel of the op does not fit its plan (missing, or the plan shares memory it does not allow)',
                },
                { node: call.node, opType: call.opType, domain: call.domain },
              ),
            );
          } else {
            missing.push(
              diagnostic(
                'TSGE-E4004',
                { op: `${call.domain}::${call.opType} (implementation ${call.kernel})`, dtype: call.inputDtype ?? '-' },
                { node: call.node, opType: call.opType, domain: call.domain },
              ),
            );
          }
        }
      }
    }
    if (missing.length > 0) throw TsgeError.fromDiagnostics(missing);

    // the current worker pool; replaced when a run times out on it (a stuck worker cannot be interrupted)
    let workers: WorkerSet | undefined;
    let ready: Promise<void> = Promise.resolve();
    let replaceWorkers: ExecutorParts['replaceWorkers'] = async () => {};
    let closed = false;
    let started: Promise<void> | undefined;
    const startWorkers = useWorkers ? device.startWorkers?.bind(device) : undefined;
    if (startWorkers) {
      // a dynamic plan runs whole on one worker (the slot's driver): every worker gets all its streams
      const assignments = plans.map((p) =>
        p.dynamic ? Array.from({ length: device.threadCount }, () => p.streams.map((_, i) => i)) : assignStreams(p, device.threadCount),
      );
      // the graph, for the host interpreter of dynamic plans on the workers
      const graphAir = anyDynamic ? serializeAir(model.graph) : undefined;
      const handler = sinkHandlerUrl();
      // workers import kernel modules given as TypeScript sources (tests) bundled: they have no loader
      const workerKernelModules = await Promise.all(kernelModules.map((m) => workerModuleUrl(m)));
      // what the libraries compiled here at load (the workspace binding compiled the SIMD module)
      const compiledCode = shareCode();
      const workerData = (index: number): SinkWorkerData => ({
        plans: plans.map((p, planIndex) => ({
          eventCount: p.eventCount,
          events: p.events,
          dynamic: p.dynamic,
          inputs: p.inputs,
          outputs: p.outputs,
          streams: (assignments[planIndex]?.[index] ?? []).map((s) => p.streams[s]).filter((s) => s !== undefined),
        })),
        controlOffset,
        layout,
        runtimeArena: index < drivers ? { offset: runtimeArenas[index] as number, bytes: runtimeArenaBytes } : { offset: -1, bytes: 0 },
        slotCount,
        maxEventCount,
        weightsBase,
        arenaBases,
        kernelModules: workerKernelModules,
        wasmModules,
        compiledCode,
        kernelKinds: factory.kernelKinds,
        ...(graphAir ? { graphAir } : {}),
        substitute,
        profile: options.profile === true,
        tileOffset,
        workspaceOffset: workspace ? workspaceOffset + (index + 1) * workspace.bytes : -1,
        workers: device.threadCount,
        // helpers need the tile functions of the kernel library even without tasks of their own
        loadDefaults: parallelKernels || anyDynamic,
      });
      const startPool = (): Promise<void> => {
        // the first run's arena (slot 0), mapped by the workers before their setup: kept threads
        // do it while this thread finishes the load, new ones beside a first run made here
        const pool = startWorkers(handler, workerData, { offset: arenaBases[0] as number, bytes: arenaBytes });
        const dispatcherFor = (): SinkDispatcher =>
          createSinkDispatcher({
            pool,
            words: () => new Int32Array(device.memory.buffer, controlOffset, layout.totalWords),
            layout,
            participants: assignments.map((byWorker, planIndex) =>
              plans[planIndex]?.dynamic ? 1 : byWorker.filter((streams) => streams.length > 0).length,
            ),
            profile: options.profile === true,
          });
        let entry: WorkerSet | undefined;
        const started = pool.ready.then(() => {
          if (entry && workers === entry) entry.dispatcher = dispatcherFor();
        });
        // settles either way: a pool that cannot start leaves runs on the calling thread
        ready = started.then(
          () => {},
          () => {},
        );
        entry = { pool, dispatcher: undefined, started: ready };
        workers = entry;
        return started;
      };
      replaceWorkers = async (stuck) => {
        if (workers !== stuck) return; // another run replaced them already
        workers = undefined; // runs use the calling thread until the new pool is up
        const stopped = stuck.pool.terminate();
        stuck.dispatcher?.abandon('the worker threads were replaced after a run timed out', stopped);
        await stopped;
        // the old workers left the control words and tile area mid-run: the new ones start from zero
        new Int32Array(device.memory.buffer, controlOffset, layout.totalWords).fill(0);
        if (tileBytes > 0) new Uint8Array(device.memory.buffer, tileOffset, tileBytes).fill(0);
        if (!closed) startPool().catch(() => {});
      };
      // the workers start as soon as the memory layout is known and every task has a kernel: the
      // weights (up to hundreds of MB, copied and first touched here) go in while they boot
      started = startPool();
      // lazy start: a pool that never starts leaves runs on the calling thread (eager: below)
      started.catch(() => {});
    }
    device.bytes().set(model.weights, weightsBase);

    if (started && options.startWorkers === 'eager') {
      await started.catch((error: unknown) => {
        throw TsgeError.of(
          'TSGE-E6009',
          { worker: 'start', reason: error instanceof Error ? error.message : String(error) },
          undefined,
          error,
        );
      });
    }
    const { executor, warmUp } = createExecutor({
      model,
      options,
      device,
      plans,
      bound,
      registry,
      nodes,
      weightsBase,
      arenaBases,
      slotCount,
      workers: () => workers,
      replaceWorkers: (stuck) => replaceWorkers(stuck),
      stopWorkers: () => {
        closed = true;
        // also a pool still starting: its workers leave the loop as they enter it, and their
        // threads stay as spares for the process's next model (worker-pool.ts)
        if (workers) signalShutdown(new Int32Array(device.memory.buffer, controlOffset, layout.totalWords));
      },
      ready: () => ready,
      defaultMode: (options.mode ?? 'sink') === 'sink' && (!anyDynamic || startWorkers !== undefined) ? 'sink' : 'host',
      threads: useWorkers ? device.threadCount : 1,
      memoryLimit,
    });
    // the first run of a fresh load paid for cold JavaScript on every thread (tile code runs
    // interpreted until V8 optimises it) and for each node's tile plan: one run on zeros pays it
    // here, once the workers are up; `whenReady` (and an eager or worker-less load) waits for it
    const feeds = warmUpFeeds(plans, model.ioInfo, options.warmUp, memoryLimit);
    // threads already running (prestarted by initialize({ workers }), or kept from an earlier model)
    // boot nothing: their setup and the warm-up cost about one run, so by default the load waits
    // for both and the first run finds warm code on every thread instead of paying for it
    const booted = options.startWorkers === undefined && workers?.pool.booted === true;
    if (feeds) {
      // a run already in flight (on the calling thread while the workers started) finishes first:
      // the warm-up would only take the cores from it
      const warmed = ready.then(() => device.synchronize()).then(() => warmUp(feeds));
      ready = warmed;
      if (options.startWorkers === 'eager' || !startWorkers || booted) await warmed;
    } else if (booted) await ready;
    return executor;
  } catch (error) {
    await device.release();
    throw asRunError(error);
  }
}

/** Warm-up runs: at least MIN_WARM_UP_RUNS, at most WARM_UP_RUNS while they took under WARM_UP_BUDGET_MS together. */
const MIN_WARM_UP_RUNS = 2;
const WARM_UP_RUNS = 8;
const WARM_UP_BUDGET_MS = 100;

/** A worker pool and, once its workers are ready, the dispatcher that signals them. */
interface WorkerSet {
  readonly pool: DeviceWorkersV1;
  dispatcher: SinkDispatcher | undefined;
  /** Settles (either way) once the pool started and the dispatcher is set. */
  readonly started: Promise<void>;
}

interface ExecutorParts {
  readonly model: OmModel;
  readonly options: LoadModelOptions;
  readonly device: DeviceV1;
  readonly plans: readonly PreparedPlan[];
  readonly bound: Map<KernelCall, BoundKernel>;
  readonly registry: KernelRegistry;
  readonly nodes: () => ReturnType<typeof nodesByName>;
  readonly weightsBase: number;
  readonly arenaBases: readonly number[];
  readonly slotCount: number;
  /** The current worker pool (undefined without workers); its dispatcher once the workers are up. */
  readonly workers: () => WorkerSet | undefined;
  /** Terminates a pool whose run timed out and starts a new one (no-op when it was replaced already). */
  readonly replaceWorkers: (stuck: WorkerSet) => Promise<void>;
  /** Tells the workers to stop, and no pool to start again (release). */
  readonly stopWorkers: () => void;
  /** Settles when the current workers have started (or failed to); resolved at once without workers. */
  readonly ready: () => Promise<void>;
  readonly defaultMode: ExecutionMode;
  readonly threads: number;
  /** The device memory limit: no input larger than this is copied anywhere. */
  readonly memoryLimit: number;
}

/**
 * Bytes of each driver worker's run-time arena: the option (a non-negative integer), else up to
 * RUNTIME_ARENA_BYTES each, leaving the calling thread as large a share of what memory is left.
 */
function runtimeArenaSize(option: unknown, spare: number, drivers: number): number {
  if (option !== undefined) {
    if (typeof option !== 'number' || !Number.isSafeInteger(option) || option < 0)
      throw TsgeError.of('TSGE-E7002', {
        option: 'LoadModelOptions.runtimeArenaBytes',
        value: String(option),
        reason: 'expected a non-negative integer',
      });
    return alignUp(option, 64);
  }
  const share = Math.floor(Math.max(0, spare) / (drivers + 1) / 65536) * 65536;
  return Math.min(RUNTIME_ARENA_BYTES, share);
}

const MODES: readonly ExecutionMode[] = ['sink', 'host'];

/** An unknown mode is an error rather than the default silently. */
function checkMode(mode: unknown, option: string): ExecutionMode | undefined {
  if (mode === undefined) return undefined;
  if (!MODES.includes(mode as ExecutionMode))
    throw TsgeError.of('TSGE-E7002', { option, value: JSON.stringify(mode) ?? String(mode), reason: `expected ${MODES.join(' or ')}` });
  return mode as ExecutionMode;
}

/** The executor, and its warm-up: one run whose trace events and run number are forgotten. */
function createExecutor(parts: ExecutorParts): { executor: Executor; warmUp: (feeds: Record<string, Feed>) => Promise<void> } {
  const { model, device, plans } = parts;
  const slots = createSlotPool(parts.slotCount);
  const traceEvents: TraceEvent[] = [];
  const profiling = parts.options.profile === true;
  const epochMicros = (ms: number): number => (performance.timeOrigin + ms) * 1000;
  let runCount = 0;
  /** A run went to the workers: they are warm, so a warm-up not started yet is not needed. */
  let ranOnWorkers = false;
  let released = false;
  const metadata = (list: OmModel['ioInfo']['inputs']): TensorMetadata[] =>
    list.map((io) => ({ name: io.name, dtype: io.dtype, shape: [...io.shape], ...(io.kind ? { kind: io.kind } : {}) }));
  const hostModel = {
    get graph() {
      return model.graph;
    },
    get nodes() {
      return parts.nodes();
    },
    registry: parts.registry,
    bound: parts.bound,
    device,
  };

  const record = (run: number, call: KernelCall, stream: number, thread: number, start: number, duration: number): void => {
    if (traceEvents.length >= MAX_TRACE_EVENTS) return;
    traceEvents.push({
      name: call.node,
      cat: call.opType,
      ph: 'X',
      ts: start,
      dur: duration,
      pid: 0,
      tid: thread,
      args: { opType: call.opType, kernel: call.kernel, stream, thread, run },
    });
  };

  // kernel contexts per slot, reused while the memory buffer is the same
  const slotContexts = new Map<number, { buffer: ArrayBufferLike; cache: Map<KernelCall, KernelContextV1> }>();
  /** Sink semantics on the calling thread (threads: 1): the same task lists over planned places. */
  async function runRefsHere(plan: PreparedPlan, slot: number, bases: RegionBases, run: number, deadline?: Deadline): Promise<void> {
    const buffer = device.memory.buffer;
    let entry = slotContexts.get(slot);
    if (!entry || entry.buffer !== buffer) {
      entry = { buffer, cache: new Map() };
      slotContexts.set(slot, entry);
    }
    const place = { views: device, bases, memory: device.memory, cache: entry.cache };
    const streamIds = new Map(plan.streams.map((s) => [s.stream, s.streamId]));
    await device.runStreams(plan.streams, plan.events, (call, stream) => {
      if (deadline?.expired()) throw deadline.error(`before node ${call.node}`);
      const start = profiling ? performance.now() : 0;
      runRefCall(call, parts.bound.get(call) as BoundKernel, place);
      if (profiling) record(run, call, streamIds.get(stream) ?? stream.id, 0, epochMicros(start), (performance.now() - start) * 1000);
    });
  }

  // device tensors by offset: a feed or binding is one of these very objects
  const deviceTensors = new Map<number, DeviceTensor>();
  const refuse = (what: string, reason: string): TsgeError => TsgeError.of('TSGE-E4153', { what, reason });
  const ownTensor = (tensor: DeviceTensor, what: string): DeviceTensor => {
    if (deviceTensors.get(tensor.offset) !== tensor) throw refuse(what, 'not a live device tensor of this executor');
    return tensor;
  };
  /** RunOptions.outputs by output index, checked before any kernel runs. */
  const bindOutputs = (outputs: RunOptions['outputs']): (BoundOutput | undefined)[] | undefined => {
    if (outputs === undefined) return undefined;
    if (typeof outputs !== 'object' || outputs === null) throw refuse('RunOptions.outputs', 'expected an object of device tensors');
    const names = model.ioInfo.outputs.map((o) => o.name);
    const bound: (BoundOutput | undefined)[] = names.map(() => undefined);
    for (const [name, tensor] of Object.entries(outputs)) {
      const index = names.indexOf(name);
      if (index < 0) throw TsgeError.of('TSGE-E4155', { output: name, expected: names.join(', ') }, { output: name });
      if (!isDeviceTensor(tensor)) throw refuse(`for output ${name}`, 'not a device tensor (Executor.createDeviceTensor)');
      ownTensor(tensor, `for output ${name}`);
      const dtype = model.ioInfo.outputs[index]?.dtype;
      if (dtype !== undefined && dtype !== tensor.type)
        throw TsgeError.of('TSGE-E4154', { output: name, bound: tensor.type, actual: dtype }, { output: name });
      bound[index] = { name, tensor };
    }
    return bound;
  };

  async function runPlanned(
    plan: PreparedPlan,
    slot: number,
    inputs: readonly RuntimeValue[],
    run: number,
    deadline: Deadline | undefined,
    bound: readonly (BoundOutput | undefined)[] | undefined,
  ): Promise<RuntimeValue[]> {
    const bases = { weights: parts.weightsBase, arena: parts.arenaBases[slot] as number };
    // a dynamic plan's driver worker receives the inputs with the job; planned inputs go to the arena
    if (!plan.dynamic) {
      plan.inputs.forEach((ref, i) => {
        const value = inputs[i] as HostTensor;
        writeInto(tensorAt(ref, device, bases, value.dims), value, model.ioInfo.inputs[i]?.name ?? `input ${i}`);
      });
    }
    const workers = parts.workers();
    const dispatcher = workers?.dispatcher;
    if (workers && dispatcher) {
      ranOnWorkers = true;
      let reports: Awaited<ReturnType<SinkDispatcher['run']>>;
      try {
        reports = await dispatcher.run(slot, plan, deadline, plan.dynamic ? inputs : undefined, plan.dynamic ? bound : undefined);
      } catch (error) {
        // the workers may still be running this job: stop them before the slot is used again
        if (TsgeError.isInstance(error) && error.code === 'TSGE-E6080') await parts.replaceWorkers(workers);
        throw error;
      }
      for (const report of reports.timings) {
        for (const [node, opType, kernel, stream, start, duration, helper] of report.timings) {
          record(run, { node, opType, kernel } as KernelCall, stream, (helper ?? report.worker) + 1, start, duration);
        }
      }
      if (reports.outputs) return [...reports.outputs];
    } else {
      await runRefsHere(plan, slot, bases, run, deadline);
    }
    return plan.outputs.map((ref, i) => {
      const planned = tensorAt(ref, device, bases);
      const target = bound?.[i];
      if (!target) return copyValue(planned);
      checkBound(target.name, target.tensor, planned.type, planned.dims);
      writeInto(target.tensor, planned, target.name);
      return target.tensor;
    });
  }

  const executor: Executor = {
    modelName: model.header.modelName,
    device: device.name,
    mode: parts.defaultMode,
    threads: parts.threads,
    inputNames: model.ioInfo.inputs.map((i) => i.name),
    outputNames: model.ioInfo.outputs.map((o) => o.name),
    inputMetadata: metadata(model.ioInfo.inputs),
    outputMetadata: metadata(model.ioInfo.outputs),
    async run(feeds: Readonly<Record<string, Feed>>, runOptions: RunOptions = {}) {
      if (released) throw TsgeError.of('TSGE-E6006');
      const requested = checkMode(runOptions?.mode, 'RunOptions.mode');
      const deadline = createDeadline(runOptions?.timeoutMs);
      const checked = checkFeeds(feeds, model.ioInfo.inputs, parts.memoryLimit);
      // device tensors travel as themselves: read where they are, not copied
      const inputs = checked.map((value, i) => {
        const name = model.ioInfo.inputs[i]?.name ?? '';
        const feed = Object.hasOwn(feeds, name) ? feeds[name] : undefined;
        return isHostTensor(value) && isDeviceTensor(feed as RuntimeValue) ? ownTensor(feed as DeviceTensor, `fed as ${name}`) : value;
      });
      const bound = bindOutputs(runOptions?.outputs);
      const plan = selectPlan(plans, model.ioInfo.inputs, inputs);
      const mode = requested ?? parts.defaultMode;
      const run = ++runCount;
      const slot = await slots.acquire();
      if (released) {
        slots.release(slot);
        throw TsgeError.of('TSGE-E6006');
      }
      const work = (async (): Promise<RuntimeValue[]> => {
        // threads kept from an earlier model of the process need only their setup: the run waits
        // for them rather than running cold on this thread
        const starting = parts.workers();
        if (starting && !starting.dispatcher && starting.pool.booted === true) await starting.started;
        // a dynamic plan runs on a worker once they are up (any value type travels with the job)
        const planned = plan.dynamic ? parts.workers()?.dispatcher !== undefined : inputs.every(isHostTensor);
        if (mode === 'sink' && planned) return runPlanned(plan, slot, inputs, run, deadline, bound);
        const bases = { weights: parts.weightsBase, arena: parts.arenaBases[slot] as number };
        return runOnHost(hostModel, plan, {
          bases,
          inputs,
          ...(bound ? { outputs: bound } : {}),
          ...(deadline ? { deadline } : {}),
          ...(profiling
            ? { observe: (call, stream, start, end) => record(run, call, stream, 0, epochMicros(start), (end - start) * 1000) }
            : {}),
        });
      })();
      try {
        const outputs = await device.track(work).catch((error: unknown) => {
          throw asRunError(error);
        });
        return namedOutputs(executor.outputNames, executor.outputNames.map((_, i) => bound?.[i]?.tensor ?? outputs[i]) as RuntimeValue[]);
      } finally {
        slots.release(slot);
      }
    },
    runSync(feeds: Readonly<Record<string, Feed>>, runOptions: RunSyncOptions = {}) {
      if (released) throw TsgeError.of('TSGE-E6006');
      const run = ++runCount;
      const observe: TaskObserver | undefined = profiling
        ? (call, stream, start, end) => record(run, call, stream, 0, epochMicros(start), (end - start) * 1000)
        : undefined;
      const { slotCount, weightsBase, arenaBases, memoryLimit } = parts;
      const sync = { model, plans, slots, slotCount, hostModel, weightsBase, arenaBases, memoryLimit };
      const outputs = runSyncOnHost(sync, feeds, runOptions, observe);
      return namedOutputs(executor.outputNames, outputs);
    },
    profile(): ChromeTrace {
      const threads = [...new Set(traceEvents.map((e) => e.tid))].sort((a, b) => a - b);
      const names: TraceMetadata[] = threads.map((tid) => ({
        name: 'thread_name',
        ph: 'M',
        pid: 0,
        tid,
        args: { name: tid === 0 ? 'calling thread' : `worker ${tid - 1}` },
      }));
      return { traceEvents: [...names, ...traceEvents], displayTimeUnit: 'ms' };
    },
    createDeviceTensor(dtype: DataType, dims: readonly number[]): DeviceTensor {
      if (released) throw TsgeError.of('TSGE-E6006');
      const what = `${String(dtype)} ${Array.isArray(dims) ? shapeToString(dims) : String(dims)}`;
      if (!isDataType(dtype) || dtype === 'string') throw refuse(what, 'the dtype has no device representation');
      if (!Array.isArray(dims) || !dims.every((d) => Number.isSafeInteger(d) && d >= 0))
        throw refuse(what, 'dims must be non-negative integers');
      if (!device.shared) throw refuse(what, `device ${device.name} has no shared memory, so its views do not survive growth`);
      const count = dims.reduce((a, b) => a * b, 1);
      const bytes = count * DTYPE_BYTES[dtype];
      if (bytes > parts.memoryLimit) throw refuse(what, `${bytes} bytes exceed the device memory limit of ${parts.memoryLimit}`);
      let offset: number;
      try {
        offset = device.allocate(Math.max(64, bytes));
      } catch (error) {
        throw TsgeError.of(
          'TSGE-E4153',
          { what, reason: `device memory is full: ${error instanceof Error ? error.message : String(error)}` },
          undefined,
          error,
        );
      }
      const data = device.view(dtype, offset, count);
      data.fill(0 as never);
      const tensor: DeviceTensor = { type: dtype, dims: Object.freeze([...dims]), data, location: 'device', offset };
      deviceTensors.set(offset, tensor);
      return tensor;
    },
    releaseDeviceTensor(tensor: DeviceTensor): void {
      if (released) return;
      ownTensor(tensor, 'released');
      deviceTensors.delete(tensor.offset);
      device.free(tensor.offset);
    },
    whenReady: () => parts.ready(),
    async release() {
      if (released) return;
      released = true;
      slots.close(TsgeError.of('TSGE-E6006'));
      await device.synchronize();
      parts.stopWorkers();
      await device.release();
    },
  };
  const warmUp = async (feeds: Record<string, Feed>): Promise<void> => {
    if (ranOnWorkers) return;
    const before = runCount;
    const warmRuns = new Set<number>();
    try {
      // V8 optimises a function after several calls, and a function called once a run needs several
      // runs: after two warm-up runs the next was still 2.3× a steady one (squeezenet, 12 ms) and
      // 1.5× (ppocr_rec, 29 ms), after five to ten 1.1–1.2×; so a model warms for two runs, and
      // for up to eight while they take under 100 ms together (det, resnet50: two)
      for (let i = 0, spent = 0; i < WARM_UP_RUNS && (i < MIN_WARM_UP_RUNS || spent < WARM_UP_BUDGET_MS); i++) {
        warmRuns.add(runCount + 1);
        const start = performance.now();
        await executor.run(feeds);
        spent += performance.now() - start;
      }
    } catch {
      // zeros are no real input: a kernel that refuses them leaves only the first run cold
    }
    // the profile and run numbers are the user's runs only (one may have started meanwhile)
    const kept = traceEvents.filter((e) => !warmRuns.has(e.args.run as number));
    traceEvents.length = 0;
    traceEvents.push(...kept);
    if (runCount === before + warmRuns.size) runCount = before;
  };
  return { executor, warmUp };
}
