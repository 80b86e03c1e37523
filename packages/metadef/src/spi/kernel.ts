import type { AttrReader, AttrValue } from '../types/attr.js';
import type { LinearMemory } from './device.js';
import type { DataType } from '../types/dtype.js';
import type { HostTensor, RuntimeValue } from '../types/tensor.js';

/**
 * What a kernel sees while it runs. Inputs are tensors whose `data` may be views into device
 * memory; outputs are requested with their dims and dtype, and the executor hands back a view at
 * the planned offset (or fresh memory when the shape was not known at compile time).
 */
export interface KernelContextV1 {
  readonly nodeName: string;
  readonly opType: string;
  readonly attrs: AttrReader;
  readonly inputCount: number;
  readonly outputCount: number;
  /** Input i, or undefined when an optional input is omitted. */
  input(index: number): RuntimeValue | undefined;
  /** Input i as a tensor; undefined when omitted; throws when it is a sequence or optional. */
  tensor(index: number): HostTensor | undefined;
  /** A writable output tensor of these dims and dtype. */
  output(index: number, dims: readonly number[], dtype: DataType): HostTensor;
  /** Sets an output to a computed value (sequences, optionals, or a tensor made elsewhere). */
  setOutput(index: number, value: RuntimeValue): void;
  /** Runs a subgraph attribute (If/Loop/Scan bodies) synchronously on the given inputs. */
  runSubgraph(attrName: string, inputs: readonly (RuntimeValue | undefined)[]): RuntimeValue[];
  /** The opset version of the node's domain in its model (kernels of canonical ops may ignore it). */
  readonly opsetVersion: number;
  /**
   * The device memory that tensor views live in, when they live in one (absent on plain host
   * memory). WebAssembly kernels instantiate over it and address tensors by `data.byteOffset`.
   */
  readonly memory?: LinearMemory;
  /** Splits work into tiles run by idle threads that share `memory` (absent: run tiles yourself). */
  readonly parallel?: ParallelRunnerV1;
}

/**
 * Intra-op parallelism. A tile is a call of a tile function that the kernel library registers by
 * name (so any thread with the library loaded can run it) with numeric arguments (byte offsets,
 * sizes); tiles must write disjoint parts of the output. `run` returns when every tile ran; the
 * calling thread takes tiles too, so a busy pool only means less help, never a wait.
 */
export interface ParallelRunnerV1 {
  /** Threads that may take part, the caller included. */
  readonly threads: number;
  run(tileFunction: string, tiles: readonly (readonly number[])[]): void;
}

/**
 * A kernel: one implementation of one op. Reference kernels (plain TypeScript) implement every
 * op; faster ones (WebAssembly SIMD) implement some and are preferred by the compiler's placement.
 */
export interface KernelV1 {
  readonly specVersion: 'v1';
  readonly opType: string;
  readonly domain: string;
  /** Implementation name, e.g. 'reference' or 'wasm-simd'. */
  readonly name: string;
  /** Dtypes of input 0 this kernel handles; undefined = every dtype the op allows. */
  readonly dtypes?: readonly DataType[];
  /** [input, output] pairs that may share memory (the kernel tolerates aliasing). */
  readonly inPlace?: readonly (readonly [number, number])[];
  /** Whether the kernel can split work across threads. */
  readonly parallel?: boolean;
  /**
   * Called by the compiler for a node with static shapes placed on this kernel: attributes that
   * record the kernel's choices (implementation, tile sizes, thread split), stored on the node in
   * the `.om`, so that binding and the first run choose nothing. `compute` must check a recorded
   * plan against its task and reject one it cannot follow with a coded error (TSGE-E7106).
   */
  plan?(node: KernelPlanInputV1): readonly (readonly [string, AttrValue])[] | undefined;
  compute(ctx: KernelContextV1): void;
}

/** What the compiler hands `KernelV1.plan`: a node whose input dims are all known. */
export interface KernelPlanInputV1 {
  readonly nodeName: string;
  readonly opType: string;
  readonly attrs: AttrReader;
  /** Dims and dtype of each input; undefined for an omitted optional input. */
  readonly inputs: readonly ({ readonly dims: readonly number[]; readonly type: DataType } | undefined)[];
  /** Threads the plan splits work for (the executor's default thread count where it was compiled). */
  readonly threads: number;
  /** How many outputs the node has (a kernel may take another path for extra outputs, e.g. MaxPool's Indices); 1 when absent. */
  readonly outputCount?: number;
}

/** A registry of kernels keyed by domain, op type and implementation name. */
export interface KernelRegistry {
  register(kernel: KernelV1): void;
  /** Best kernel for an op and input-0 dtype; prefers implementation names in `preference` order. */
  find(opType: string, domain: string, dtype: DataType | undefined, preference?: readonly string[]): KernelV1 | undefined;
  /** Whether an implementation of this name is registered for the op (any dtype). */
  has(opType: string, domain: string, name: string): boolean;
  list(): readonly KernelV1[];
}

/**
 * A tile function: one unit of intra-op parallelism, run by any thread that shares `memory` from
 * numbers alone (byte offsets, sizes). A kernel library lists its tile functions explicitly; the
 * executor indexes them by name for its helper threads.
 */
export interface TileFunctionV1 {
  readonly name: string;
  run(memory: LinearMemory, args: readonly number[]): void;
}

/** Scratch memory a library's kernels want per thread in device memory, and how a thread binds its own. */
export interface ThreadWorkspaceV1 {
  /** Bytes per thread (the executor rounds up to 64). */
  readonly bytesPerThread: number;
  /** Tells the library where this thread's workspace is (called once per thread and memory). */
  bind(memory: LinearMemory, offset: number, bytes: number): void;
}

/**
 * Code a library compiled on one thread that the device's other threads may reuse instead of
 * compiling it again (the executor hands a worker the calling thread's code before its setup).
 */
export interface CompiledCodeV1 {
  /** What this thread compiled so far, structured-cloneable (a cloned WebAssembly.Module shares its code). */
  share(): unknown;
  /** Takes another thread's `share()` before the library's first use on this thread; throws on malformed input. */
  adopt(code: unknown): void;
  /**
   * Compiles, on this thread, the code the library's kernels may need over shared or unshared
   * memory, ahead of any model (a process's initialisation), so loads and first runs compile none
   * of it. Optional; a library without it compiles on first use.
   */
  warm?(shared: boolean): void;
}

/**
 * What a kernel library hands the executor (and the compiler's kernel placement): plain kernel
 * descriptors, the tile functions they split work into, and the per-thread workspace they need.
 * Libraries are values, not registrations: importing one changes no global state.
 */
export interface KernelLibraryV1 {
  readonly specVersion: 'v1';
  /** The library's name, e.g. '@tsge/kernels-wasm'. */
  readonly name: string;
  /**
   * The device kind its kernels need: 'host' (plain arrays: any device, constant folding) or 'cpu'
   * (views of the CPU device's WebAssembly memory; they hand other inputs to a host kernel).
   */
  readonly device: 'host' | 'cpu';
  readonly kernels: readonly KernelV1[];
  readonly tiles: readonly TileFunctionV1[];
  readonly workspace?: ThreadWorkspaceV1;
  /** Code compiled on one thread that the device's workers take instead of compiling it again. */
  readonly compiledCode?: CompiledCodeV1;
}
