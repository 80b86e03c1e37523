import { type HostTensor, type KernelContextV1, type KernelV1, readNumber } from '@tsge/metadef';
import { legacyAlignedSecond, broadcastStaticDims, planBroadcastRows, defineKernel } from '@tsge/kernels-js/kernel-support';
import type { BinaryKind, BinaryMode } from './elementwise-module.js';
import { type SimdKernelExports, simdKernels } from './kernel-modules.js';
import { inMemory } from './simd-matmul.js';
import { runTiles, splitRange, tileFunction } from './tiles.js';

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

/** The floats a unary wasm function takes after (x, y, n), read from the node; undefined: the reference kernel must take it. */
type UnaryParams = (ctx: KernelContextV1) => readonly number[] | undefined;
/** Calls the wasm function on n floats at byte addresses x, y. */
type UnaryCall = (kernels: SimdKernelExports, x: number, y: number, n: number, p: readonly number[]) => void;

/** Reads Clip's bounds as the reference does; undefined (fall back) when lo > hi fills the output with hi. */
const clipParams: UnaryParams = (ctx) => {
  const minT = ctx.tensor(1);
  const maxT = ctx.tensor(2);
  const lo = minT && minT.data.length > 0 ? readNumber(minT, 0) : ctx.attrs.float('min', Number.NEGATIVE_INFINITY);
  const hi = maxT && maxT.data.length > 0 ? readNumber(maxT, 0) : ctx.attrs.float('max', Number.POSITIVE_INFINITY);
  return lo <= hi ? [lo, hi] : undefined;
};
const none: UnaryParams = () => [];

/**
 * opType, parameters, call and work per element: the exp-based ops cost about ten times a clamp,
 * so they split over the threads from far fewer elements (tiles.ts splitRange).
 */
const UNARY_OPS: readonly (readonly [string, UnaryParams, UnaryCall, number])[] = [
  ['Relu', none, (k, x, y, n) => k.relu(x, y, n), 1],
  ['LeakyRelu', (ctx) => [ctx.attrs.float('alpha', 0.01)], (k, x, y, n, p) => k.leakyRelu(x, y, n, p[0] as number), 1],
  ['Clip', clipParams, (k, x, y, n, p) => k.clip(x, y, n, p[0] as number, p[1] as number), 1],
  ['Sigmoid', none, (k, x, y, n) => k.sigmoid(x, y, n), 16],
  [
    'HardSigmoid',
    (ctx) => [ctx.attrs.float('alpha', 0.2), ctx.attrs.float('beta', 0.5)],
    (k, x, y, n, p) => k.hardSigmoid(x, y, n, p[0] as number, p[1] as number),
    1,
  ],
  ['HardSwish', none, (k, x, y, n) => k.hardSwish(x, y, n), 1],
  ['Tanh', none, (k, x, y, n) => k.tanh(x, y, n), 16],
];

export const UNARY_RANGE_TILE = 'simd.unaryRange';

/** A range of a unary op. Arguments: index in UNARY_OPS, x, y (byte addresses of the range), n, then the op's floats. */
export const unaryRangeTile = tileFunction(UNARY_RANGE_TILE, (memory, t) => {
  const kernels = simdKernels(memory);
  const op = UNARY_OPS[t[0] as number];
  if (!kernels || !op) throw new Error(`${UNARY_RANGE_TILE} needs WebAssembly SIMD and a unary op index, got ${t[0]}`);
  op[2](kernels, t[1] as number, t[2] as number, t[3] as number, t.slice(4));
});

function simdUnaryKernel(index: number, reference: KernelV1): KernelV1 {
  const [opType, params, , work] = UNARY_OPS[index] as (typeof UNARY_OPS)[number];
  return defineKernel({
    opType,
    name: 'wasm-simd',
    dtypes: ['float32'],
    inPlace: [[0, 0]],
    parallel: true,
    compute: (ctx: KernelContextV1) => {
      const memory = ctx.memory;
      const x = ctx.tensor(0);
      if (!memory || !x || x.type !== 'float32' || !inMemory(memory, x) || !simdKernels(memory)) return reference.compute(ctx);
      const p = params(ctx);
      if (!p) return reference.compute(ctx);
      const y = ctx.output(0, x.dims, 'float32');
      if (!inMemory(memory, y)) return reference.compute(ctx);
      // ranges of whole 64-byte lines, so only the last one has a scalar tail
      const parts = splitRange(x.data.length, ctx.parallel?.threads ?? 1, 16, work);
      runTiles(
        memory,
        ctx.parallel,
        unaryRangeTile,
        parts.map(([a, b]) => [index, address(x, a), address(y, a), b - a, ...p]),
      );
    },
  });
}

/** The 'wasm-simd' elementwise kernels, each over the matching reference kernel in `references`. */
export function simdElementwiseKernels(referenceOf: (opType: string) => KernelV1): KernelV1[] {
  return [
    ...BINARY_OPS.map(([opType, kind]) => simdBinaryKernel(opType, kind, referenceOf(opType))),
    simdSumKernel(referenceOf('Sum')),
    ...UNARY_OPS.map(([opType], i) => simdUnaryKernel(i, referenceOf(opType))),
  ];
}
