// Test helpers for the SIMD kernels: tensors placed in a WebAssembly memory, run by a kernel and
// compared with the reference kernel on the same inputs.
import {
  type AttrValue,
  type HostTensor,
  type KernelContextV1,
  type KernelV1,
  type LinearMemory,
  createAttrReader,
  createTensor,
} from '@tsge/metadef';
import { THREAD_WORKSPACE_BYTES, bindThreadWorkspace } from './thread-workspace.js';
import { wasmKernelLibrary } from './library.js';

const WasmMemory = (
  globalThis as unknown as { WebAssembly: { Memory: new (d: { initial: number; maximum?: number; shared?: boolean }) => LinearMemory } }
).WebAssembly.Memory;

/** A memory of `pages` pages for tensors, then this thread's workspace (bound, as the executor does). */
export function wasmMemory(shared: boolean, pages = 64): LinearMemory {
  const total = pages + THREAD_WORKSPACE_BYTES / 65536;
  const memory = new WasmMemory(shared ? { initial: total, maximum: total * 2, shared: true } : { initial: total });
  bindThreadWorkspace(memory, pages * 65536, THREAD_WORKSPACE_BYTES);
  return memory;
}

export function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return (s / 0x7fffffff - 0.5) * 8;
  };
}

export interface Operand {
  readonly dims: readonly number[];
  readonly values: Float32Array;
  /** An int64 host tensor (pads, sizes) instead of float32 in the memory. */
  readonly int64?: boolean;
}

export function operand(dims: readonly number[], seed: number, scale = 1): Operand {
  const rnd = random(seed);
  const count = dims.reduce((p, d) => p * d, 1);
  return { dims, values: Float32Array.from({ length: count }, () => rnd() * scale) };
}

export interface RunOptions {
  readonly opType: string;
  readonly inputs: readonly (Operand | undefined)[];
  readonly attrs?: Readonly<Record<string, AttrValue>>;
  /** Place tensors in this memory; host memory (no ctx.memory) when absent. */
  readonly memory?: LinearMemory;
  /** Write the output over input 0 (in-place). */
  readonly inPlace?: boolean;
  /** Misalign views by this many floats (views stay 4-byte aligned). */
  readonly skew?: number;
  /** Offer a pool of this many threads that runs the tiles on this thread, last first. */
  readonly threads?: number;
}

/** Runs `kernel` once and returns output 0 as a copy. */
export function runKernel(kernel: KernelV1, options: RunOptions): { dims: readonly number[]; values: Float32Array } {
  const memory = options.memory;
  let offset = 64 + 4 * (options.skew ?? 0);
  const place = (count: number): Float32Array => {
    if (!memory) return new Float32Array(count);
    const view = new Float32Array(memory.buffer, offset, count);
    offset += Math.ceil((count * 4 + 4) / 64) * 64 + 4 * (options.skew ?? 0);
    return view;
  };
  const tensors: (HostTensor | undefined)[] = options.inputs.map((input) => {
    if (!input) return undefined;
    if (input.int64)
      return createTensor(
        'int64',
        input.dims,
        BigInt64Array.from(input.values, (v) => BigInt(v)),
      );
    const data = place(input.values.length);
    data.set(input.values);
    return { type: 'float32', dims: [...input.dims], data };
  });
  let result: HostTensor | undefined;
  const attrs = new Map<string, AttrValue>(Object.entries(options.attrs ?? {}));
  const ctx: KernelContextV1 = {
    nodeName: 'node',
    opType: options.opType,
    attrs: createAttrReader(attrs),
    inputCount: tensors.length,
    outputCount: 1,
    opsetVersion: 21,
    ...(memory ? { memory } : {}),
    ...(memory && options.threads
      ? {
          parallel: {
            threads: options.threads,
            run: (name: string, tiles: readonly (readonly number[])[]) => {
              for (const t of [...tiles].reverse()) runTile(memory, name, t);
            },
          },
        }
      : {}),
    input: (i) => tensors[i],
    tensor: (i) => tensors[i],
    output: (_i, dims, dtype) => {
      const count = dims.reduce((p, d) => p * d, 1);
      const first = tensors[0];
      if (options.inPlace && first && first.data.length === count) {
        result = { type: dtype, dims: [...dims], data: first.data };
      } else if (memory) {
        const data = place(count);
        data.fill(Number.NaN);
        result = { type: dtype, dims: [...dims], data };
      } else {
        result = createTensor(dtype, dims);
      }
      return result;
    },
    setOutput: () => {},
    runSubgraph: () => [],
  };
  kernel.compute(ctx);
  if (!result) throw new Error('kernel produced no output');
  return { dims: result.dims, values: Float32Array.from(result.data as Float32Array) };
}

/** Largest error relative to max(|expected|, floor), and whether NaNs line up. */
export function maxRelativeError(actual: Float32Array, expected: Float32Array, floor = 1): number {
  let worst = 0;
  for (let i = 0; i < expected.length; i++) {
    const e = expected[i] as number;
    const a = actual[i] as number;
    if (Number.isNaN(e) || Number.isNaN(a)) {
      if (Number.isNaN(e) !== Number.isNaN(a)) return Number.POSITIVE_INFINITY;
      continue;
    }
    if (e === a) continue;
    worst = Math.max(worst, Math.abs(a - e) / Math.max(Math.abs(e), floor));
  }
  return worst;
}

/** Runs one of the library's tile functions by name, as a helper thread of the executor does. */
export function runTile(memory: LinearMemory, name: string, args: readonly number[]): void {
  const tile = wasmKernelLibrary.tiles.find((t) => t.name === name);
  if (!tile) throw new Error(`unknown tile function ${name}`);
  tile.run(memory, args);
}
