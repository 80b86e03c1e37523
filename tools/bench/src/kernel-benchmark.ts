// Micro-benchmarks of the 'wasm-simd' kernels against the reference kernels on shapes from the
// PP-OCRv4 detector and ResNet-50, both reading and writing views of one WebAssembly memory.
import { type AttrValue, type HostTensor, type KernelContextV1, type KernelV1, type LinearMemory, createAttrReader } from '@tsge/metadef';
import { mathKernels, nnKernels } from '@tsge/kernels-js/kernel-support';
import { wasmKernelLibrary } from '@tsge/kernels-wasm';
import { wasmSimdKernels } from '@tsge/kernels-wasm/kernel-support';

/** The library's per-thread workspace, reserved after the benchmark's tensors as the executor does. */
const { bytesPerThread: THREAD_WORKSPACE_BYTES, bind: bindThreadWorkspace } = wasmKernelLibrary.workspace ?? {
  bytesPerThread: 0,
  bind: () => {},
};

export interface KernelBenchmarkCase {
  readonly label: string;
  readonly opType: string;
  readonly inputs: readonly (readonly number[] | undefined)[];
  readonly attrs?: Readonly<Record<string, AttrValue>>;
  /** Input values: 'signed' (default, in [-4, 4)) or 'positive' (variances, divisors). */
  readonly positive?: readonly number[];
  /** Fixed values of some inputs (bounds, scales), by input index. */
  readonly values?: Readonly<Record<number, readonly number[]>>;
}

export interface KernelBenchmarkResult {
  readonly label: string;
  readonly referenceMs: number;
  readonly simdMs: number;
}

const ints = (value: readonly number[]): AttrValue => ({ kind: 'ints', value });
const one = (value: number): AttrValue => ({ kind: 'int', value });

/** The default cases: the hot elementwise, pooling, normalisation and Gemm shapes of the two models. */
export const KERNEL_BENCHMARK_CASES: readonly KernelBenchmarkCase[] = [
  {
    label: 'Add 1×64×160×160 + same',
    opType: 'Add',
    inputs: [
      [1, 64, 160, 160],
      [1, 64, 160, 160],
    ],
  },
  {
    label: 'Add 1×64×160×160 + [64,1,1]',
    opType: 'Add',
    inputs: [
      [1, 64, 160, 160],
      [64, 1, 1],
    ],
  },
  {
    label: 'Mul 1×64×160×160 × [1,64,1,1]',
    opType: 'Mul',
    inputs: [
      [1, 64, 160, 160],
      [1, 64, 1, 1],
    ],
  },
  { label: 'Mul 1×64×160×160 × scalar', opType: 'Mul', inputs: [[1, 64, 160, 160], [1]] },
  { label: 'Div 1×64×160×160 / scalar', opType: 'Div', inputs: [[1, 64, 160, 160], [1]], positive: [1] },
  {
    label: 'Sum 1×256×56×56 + same',
    opType: 'Sum',
    inputs: [
      [1, 256, 56, 56],
      [1, 256, 56, 56],
    ],
  },
  { label: 'Relu 1×256×56×56', opType: 'Relu', inputs: [[1, 256, 56, 56]] },
  { label: 'Clip 1×64×160×160 [0,6]', opType: 'Clip', inputs: [[1, 64, 160, 160], [], []], values: { 1: [0], 2: [6] } },
  { label: 'Sigmoid 1×64×160×160', opType: 'Sigmoid', inputs: [[1, 64, 160, 160]] },
  { label: 'Tanh 1×64×160×160', opType: 'Tanh', inputs: [[1, 64, 160, 160]] },
  { label: 'HardSwish 1×64×160×160', opType: 'HardSwish', inputs: [[1, 64, 160, 160]] },
  { label: 'HardSigmoid 1×64×160×160', opType: 'HardSigmoid', inputs: [[1, 64, 160, 160]] },
  { label: 'LeakyRelu 1×64×160×160', opType: 'LeakyRelu', inputs: [[1, 64, 160, 160]] },
  {
    label: 'MaxPool 3×3/2 1×64×112×112',
    opType: 'MaxPool',
    inputs: [[1, 64, 112, 112]],
    attrs: { kernel_shape: ints([3, 3]), strides: ints([2, 2]), pads: ints([1, 1, 1, 1]) },
  },
  {
    label: 'MaxPool 2×2/2 1×64×160×160',
    opType: 'MaxPool',
    inputs: [[1, 64, 160, 160]],
    attrs: { kernel_shape: ints([2, 2]), strides: ints([2, 2]) },
  },
  {
    label: 'AveragePool 3×3/1 1×64×80×80',
    opType: 'AveragePool',
    inputs: [[1, 64, 80, 80]],
    attrs: { kernel_shape: ints([3, 3]), strides: ints([1, 1]), pads: ints([1, 1, 1, 1]), count_include_pad: one(0) },
  },
  { label: 'GlobalAveragePool 1×256×40×40', opType: 'GlobalAveragePool', inputs: [[1, 256, 40, 40]] },
  { label: 'GlobalMaxPool 1×256×40×40', opType: 'GlobalMaxPool', inputs: [[1, 256, 40, 40]] },
  {
    label: 'BatchNormalization 1×64×160×160',
    opType: 'BatchNormalization',
    inputs: [[1, 64, 160, 160], [64], [64], [64], [64]],
    positive: [4],
  },
  {
    label: 'ConvTranspose 2×2/2 24→24 160×160',
    opType: 'ConvTranspose',
    inputs: [[1, 24, 160, 160], [24, 24, 2, 2], [24]],
    attrs: { strides: ints([2, 2]) },
  },
  {
    label: 'ConvTranspose 2×2/2 24→1 320×320',
    opType: 'ConvTranspose',
    inputs: [[1, 24, 320, 320], [24, 1, 2, 2], [1]],
    attrs: { strides: ints([2, 2]) },
  },
  {
    label: 'Resize nearest ×2 1×96×80×80',
    opType: 'Resize',
    inputs: [[1, 96, 80, 80], [0], [4]],
    values: { 2: [1, 1, 2, 2] },
    attrs: { mode: { kind: 'string', value: 'nearest' } },
  },
  { label: 'Softmax 1×40×6625 (last axis)', opType: 'Softmax', inputs: [[1, 40, 6625]] },
  { label: 'Softmax 1×8×40×40 (attention)', opType: 'Softmax', inputs: [[1, 8, 40, 40]] },
  { label: 'Gemm 1×2048 · 1000×2048ᵀ + bias', opType: 'Gemm', inputs: [[1, 2048], [1000, 2048], [1000]], attrs: { transB: one(1) } },
];

interface WasmApi {
  Memory: new (d: { initial: number }) => LinearMemory;
}

/** A context whose output is placed at byte `outputAt` of `memory` (after the inputs). */
function context(
  opType: string,
  memory: LinearMemory,
  tensors: readonly (HostTensor | undefined)[],
  options: { attrs: ReadonlyMap<string, AttrValue>; outputAt: number },
): KernelContextV1 {
  return {
    nodeName: opType,
    opType,
    attrs: createAttrReader(options.attrs),
    inputCount: tensors.length,
    outputCount: 1,
    opsetVersion: 21,
    memory,
    input: (i) => tensors[i],
    tensor: (i) => tensors[i],
    output: (_i, dims, dtype) => ({
      type: dtype,
      dims: [...dims],
      data: new Float32Array(
        memory.buffer,
        options.outputAt,
        dims.reduce((p, d) => p * d, 1),
      ),
    }),
    setOutput: () => {},
    runSubgraph: () => [],
  };
}

function timeKernel(kernel: KernelV1, makeContext: () => KernelContextV1, budgetMs: number): number {
  kernel.compute(makeContext());
  let best = Number.POSITIVE_INFINITY;
  const start = performance.now();
  let runs = 0;
  while (runs < 3 || (performance.now() - start < budgetMs && runs < 200)) {
    const ctx = makeContext();
    const t = performance.now();
    kernel.compute(ctx);
    best = Math.min(best, performance.now() - t);
    runs++;
  }
  return best;
}

/** Best-of-runs milliseconds of the reference and 'wasm-simd' kernel for each case (one thread). */
export function benchmarkSimdKernels(
  cases: readonly KernelBenchmarkCase[] = KERNEL_BENCHMARK_CASES,
  budgetMs = 300,
): KernelBenchmarkResult[] {
  const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
  const simd = wasmSimdKernels();
  const reference = [...mathKernels, ...nnKernels];
  const results: KernelBenchmarkResult[] = [];
  for (const c of cases) {
    const fast = simd.find((k) => k.opType === c.opType);
    const slow = reference.find((k) => k.opType === c.opType && k.name === 'reference');
    if (!fast || !slow) continue;
    const counts = c.inputs.map((dims) => (dims ? dims.reduce((p, d) => p * d, 1) : 0));
    // room for the inputs and an output up to four times their size (ConvTranspose upsamples)
    const bytes = counts.reduce((p, n) => p + n * 20 + 256, 0) + 65536;
    const pages = Math.ceil(bytes / 65536) + 2;
    const memory = new wasm.Memory({ initial: pages + THREAD_WORKSPACE_BYTES / 65536 });
    bindThreadWorkspace(memory, pages * 65536, THREAD_WORKSPACE_BYTES);
    let offset = 64;
    const place = (count: number): Float32Array => {
      const view = new Float32Array(memory.buffer, offset, count);
      offset += Math.ceil((count * 4) / 64) * 64 + 64;
      return view;
    };
    let seed = 7;
    const tensors = c.inputs.map((dims, i): HostTensor | undefined => {
      if (!dims) return undefined;
      const data = place(counts[i] as number);
      for (let k = 0; k < data.length; k++) {
        seed = (seed * 1103515245 + 12345) & 0x7fffffff;
        const v = (seed / 0x7fffffff) * 8;
        data[k] = c.positive?.includes(i) ? v + 0.5 : v - 4;
      }
      const fixed = c.values?.[i];
      if (fixed) data.set(fixed);
      return { type: 'float32', dims: [...dims], data };
    });
    const options = { attrs: new Map(Object.entries(c.attrs ?? {})), outputAt: offset };
    const makeContext = (): KernelContextV1 => context(c.opType, memory, tensors, options);
    results.push({ label: c.label, referenceMs: timeKernel(slow, makeContext, budgetMs), simdMs: timeKernel(fast, makeContext, budgetMs) });
  }
  return results;
}
