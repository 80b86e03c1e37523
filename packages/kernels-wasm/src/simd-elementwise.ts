import { type HostTensor, type KernelContextV1, type KernelV1, readNumber } from '@tsge/metadef';
import { legacyAlignedSecond, broadcastStaticDims, planBroadcastRows, defineKernel } from '@tsge/kernels-js/kernel-support';
import type { BinaryKind, BinaryMode } from './elementwise-module.js';
import { type SimdKernelExports, simdKernels } from './kernel-modules.js';
import { inMemory } from './simd-matmul.js';

/** Broadcast rows shorter than this cost more in calls than they save; the reference kernel takes them. */
const MIN_ROW = 16;

const address = (t: HostTensor, element: number): number => (t.data as Float32Array).byteOffset + element * 4;

interface BinaryPlan {
  readonly aDims: readonly number[];
  readonly bDims: readonly number[];
  readonly dims: number[] | undefined;
  readonly plan: ReturnType<typeof planBroadcastRows> | undefined;
}
const binaryPlans = new WeakMap<KernelContextV1, BinaryPlan>();

function sameDims(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const BINARY_OPS: readonly (readonly [string, BinaryKind])[] = [
  ['Add', 'add'],
  ['Sub', 'sub'],
  ['Mul', 'mul'],
  ['Div', 'div'],
];

/**
 * Add/Sub/Mul/Div on float32 in device memory. The broadcast is planned in rows (equal shapes are
 * one row; a scalar or per-channel operand is a repeated element per row), each row one call.
 */
function simdBinaryKernel(opType: string, kind: BinaryKind, reference: KernelV1): KernelV1 {
  return defineKernel({
    opType,
    name: 'wasm-simd',
    dtypes: ['float32'],
    inPlace: [
      [0, 0],
      [1, 0],
    ],
    compute: (ctx: KernelContextV1) => {
      const memory = ctx.memory;
      const a = ctx.tensor(0);
      const second = ctx.tensor(1);
      if (!memory || !a || !second || a.type !== 'float32' || second.type !== 'float32' || !inMemory(memory, a, second)) {
        return reference.compute(ctx);
      }
      const b = legacyAlignedSecond(ctx, a, second);
      // a node's context comes back every run with the same dims: reuse its broadcast plan
      let cached = binaryPlans.get(ctx);
      if (!cached || !sameDims(cached.aDims, a.dims) || !sameDims(cached.bDims, b.dims)) {
        const broadcast = broadcastStaticDims([a.dims, b.dims]);
        cached = {
          aDims: [...a.dims],
          bDims: [...b.dims],
          dims: broadcast,
          plan: broadcast ? planBroadcastRows([a.dims, b.dims], broadcast) : undefined,
        };
        binaryPlans.set(ctx, cached);
      }
      const { dims, plan } = cached;
      if (!dims || !plan) return reference.compute(ctx);
      const length = plan.rowLength;
      if (plan.rowCount > 1 && length < MIN_ROW) return reference.compute(ctx);
      const kernels = simdKernels(memory);
      if (!kernels) return reference.compute(ctx);
      const y = ctx.output(0, dims, 'float32');
      if (!inMemory(memory, y)) return reference.compute(ctx);
      const [aSteps, bSteps] = plan.steps as [number, number];
      const mode: BinaryMode = length === 1 || (aSteps === 1 && bSteps === 1) ? 'VV' : bSteps === 0 ? 'VS' : 'SV';
      if (aSteps === 0 && bSteps === 0 && length > 1) return reference.compute(ctx);
      const run = kernels[`${kind}${mode}`];
      const aOffsets = plan.offsets[0] as Int32Array;
      const bOffsets = plan.offsets[1] as Int32Array;
      for (let r = 0; r < plan.rowCount; r++) {
        run(address(a, aOffsets[r] as number), address(b, bOffsets[r] as number), address(y, r * length), length);
      }
    },
  });
}

/**
 * Sum of float32 inputs in device memory, accumulated into the output input by input (float32
 * rounding after each addition, where the reference rounds once).
 */
function simdSumKernel(reference: KernelV1): KernelV1 {
  return defineKernel({
    opType: 'Sum',
    name: 'wasm-simd',
    dtypes: ['float32'],
    compute: (ctx: KernelContextV1) => {
      const memory = ctx.memory;
      if (!memory || ctx.inputCount < 2) return reference.compute(ctx);
      const inputs: HostTensor[] = [];
      for (let i = 0; i < ctx.inputCount; i++) {
        const t = ctx.tensor(i);
        if (t?.type !== 'float32' || !inMemory(memory, t)) return reference.compute(ctx);
        inputs.push(t);
      }
      const dims = broadcastStaticDims(inputs.map((t) => t.dims));
      if (!dims) return reference.compute(ctx);
      const plan = planBroadcastRows(
        inputs.map((t) => t.dims),
        dims,
      );
      const length = plan.rowLength;
      if (plan.rowCount > 1 && length < MIN_ROW) return reference.compute(ctx);
      // start from an input that is a full row, so every later step adds into a vector
      const first = length === 1 ? 0 : plan.steps.indexOf(1);
      const kernels = simdKernels(memory);
      if (first < 0 || !kernels) return reference.compute(ctx);
      const y = ctx.output(0, dims, 'float32');
      if (!inMemory(memory, y)) return reference.compute(ctx);
      const firstInput = inputs[first] as HostTensor;
      const firstOffsets = plan.offsets[first] as Int32Array;
      let started = false;
      for (let i = 0; i < inputs.length; i++) {
        if (i === first) continue;
        const input = inputs[i] as HostTensor;
        const offsets = plan.offsets[i] as Int32Array;
        const run = plan.steps[i] === 1 || length === 1 ? kernels.addVV : kernels.addVS;
        for (let r = 0; r < plan.rowCount; r++) {
          const from = started ? address(y, r * length) : address(firstInput, firstOffsets[r] as number);
          run(from, address(input, offsets[r] as number), address(y, r * length), length);
        }
        started = true;
      }
    },
  });
}

/** Runs the wasm function; returns false when the reference kernel must take the node instead. */
type UnaryRun = (kernels: SimdKernelExports, ctx: KernelContextV1, x: number, y: number, n: number) => unknown;

/** Reads Clip's bounds as the reference does; false (fall back) when lo > hi fills the output with hi. */
const clipRun: UnaryRun = (kernels, ctx, x, y, n) => {
  const minT = ctx.tensor(1);
  const maxT = ctx.tensor(2);
  const lo = minT && minT.data.length > 0 ? readNumber(minT, 0) : ctx.attrs.float('min', Number.NEGATIVE_INFINITY);
  const hi = maxT && maxT.data.length > 0 ? readNumber(maxT, 0) : ctx.attrs.float('max', Number.POSITIVE_INFINITY);
  if (!(lo <= hi)) return false;
  kernels.clip(x, y, n, lo, hi);
  return true;
};

const UNARY_OPS: readonly (readonly [string, UnaryRun])[] = [
  ['Relu', (k, _ctx, x, y, n) => k.relu(x, y, n)],
  ['LeakyRelu', (k, ctx, x, y, n) => k.leakyRelu(x, y, n, ctx.attrs.float('alpha', 0.01))],
  ['Clip', clipRun],
  ['Sigmoid', (k, _ctx, x, y, n) => k.sigmoid(x, y, n)],
  ['HardSigmoid', (k, ctx, x, y, n) => k.hardSigmoid(x, y, n, ctx.attrs.float('alpha', 0.2), ctx.attrs.float('beta', 0.5))],
  ['HardSwish', (k, _ctx, x, y, n) => k.hardSwish(x, y, n)],
  ['Tanh', (k, _ctx, x, y, n) => k.tanh(x, y, n)],
];

function simdUnaryKernel(opType: string, run: UnaryRun, reference: KernelV1): KernelV1 {
  return defineKernel({
    opType,
    name: 'wasm-simd',
    dtypes: ['float32'],
    inPlace: [[0, 0]],
    compute: (ctx: KernelContextV1) => {
      const memory = ctx.memory;
      const x = ctx.tensor(0);
      if (!memory || !x || x.type !== 'float32' || !inMemory(memory, x)) return reference.compute(ctx);
      const kernels = simdKernels(memory);
      if (!kernels) return reference.compute(ctx);
      const y = ctx.output(0, x.dims, 'float32');
      if (!inMemory(memory, y) || run(kernels, ctx, address(x, 0), address(y, 0), x.data.length) === false) return reference.compute(ctx);
    },
  });
}

/** The 'wasm-simd' elementwise kernels, each over the matching reference kernel in `references`. */
export function simdElementwiseKernels(referenceOf: (opType: string) => KernelV1): KernelV1[] {
  return [
    ...BINARY_OPS.map(([opType, kind]) => simdBinaryKernel(opType, kind, referenceOf(opType))),
    simdSumKernel(referenceOf('Sum')),
    ...UNARY_OPS.map(([opType, run]) => simdUnaryKernel(opType, run, referenceOf(opType))),
  ];
}
