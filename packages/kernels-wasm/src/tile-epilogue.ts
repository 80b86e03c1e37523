import { type KernelContextV1, type KernelDescription, KOp, type LinearMemory, TsgeError, kernelElements } from '@tsge/metadef';
import {
  applyActivation,
  checkEpilogueKind,
  checkOperands,
  epilogueDescription,
  epilogueOperands,
  interpretDescription,
} from '@tsge/kernels-js/kernel-support';
import { cachedDescription, compiledBox, emittable } from './generated-elementwise.js';
import { type SimdKernelExports, hasWasmSimd, simdKernels } from './kernel-modules.js';

/**
 * What a fused Conv applies to its result, and where:
 * - `lo`/`hi`: a clamp inside the GEMM store (Relu, Clip, or a generated epilogue that is only that);
 * - `tail`: tile arguments of a generated epilogue (automatic fusion) that each tile runs over its
 *   own output block right after computing it, while the block is in cache (`[0]`: none);
 * - `after`: a pass over the whole output once every tile is done (activations the store cannot
 *   apply, and epilogues the SIMD emitter does not cover, on the interpreter).
 */
export interface ConvEpilogue {
  readonly lo: number;
  readonly hi: number;
  readonly tail: readonly number[];
  readonly after?: (data: Float32Array) => void;
}

const NO_TAIL: readonly number[] = [0];

/**
 * The epilogue of a Conv or FusedConv writing `y` of `dims`. `storeClamp`: whether the path's GEMM
 * store can clamp (the depthwise kernel cannot: its clamp comes from the tail or the pass after).
 */
export function convEpilogue(ctx: KernelContextV1, y: Float32Array, dims: readonly number[], storeClamp = true): ConvEpilogue {
  const { activation, params } = activationOf(ctx);
  const clamp = storeClamp ? clampOf(activation, params) : undefined;
  const pass = clamp ? undefined : activationPass(ctx);
  const none = { lo: Number.NEGATIVE_INFINITY, hi: Number.POSITIVE_INFINITY, tail: NO_TAIL };
  const base = { ...none, ...clamp, ...(pass ? { after: pass } : {}) };
  if (!ctx.attrs.has('description') && !ctx.attrs.has('kernel')) return base;
  const { description: d, words } = epilogueDescription(ctx, dims);
  const operands = epilogueOperands(ctx, y);
  checkOperands(d, operands, y, ctx.nodeName);
  checkLayout(d, ctx, y);
  // the GEMM writes y before the epilogue reads its other inputs: they must not share bytes with it
  for (const x of operands.slice(1))
    if (x.buffer === y.buffer && x.byteOffset < y.byteOffset + y.byteLength && y.byteOffset < x.byteOffset + x.byteLength)
      throw TsgeError.of('TSGE-E7103', {
        node: ctx.nodeName,
        kernel: ctx.nodeName,
        reason: 'an epilogue input shares memory with the output',
      });
  const memory = ctx.memory;
  const inMemory = memory !== undefined && operands.every((x) => x.buffer === memory.buffer);
  // a plan runs this again on later runs: views of the memory as it is then (it may have grown)
  const whole = (data: Float32Array) => {
    pass?.(data);
    const others = operands.slice(1).map((x) => (inMemory && memory ? new Float32Array(memory.buffer, x.byteOffset, x.length) : x));
    interpretDescription(d, [data, ...others], data);
  };
  // an activation that runs as a pass after the tiles must come before the epilogue: both after
  if (pass || !inMemory || !hasWasmSimd() || !emittable(d)) return { ...base, after: whole };
  const chain = activation === 'None' && storeClamp ? clampChain(d) : undefined;
  if (chain) return { ...none, ...chain };
  return { ...base, tail: tailOf(words, operands) };
}

function tailOf(words: readonly number[], operands: readonly Float32Array[]): number[] {
  return [operands.length, ...operands.map((x) => x.byteOffset), words.length, ...words];
}

/**
 * A PackedMatMul's generated epilogue as tile arguments, when its tiles can run it over their
 * blocks of `y` (the output as [1, rows, N]): no bias or activation of its own to apply first,
 * every input in device memory, and the SIMD emitter covers it. Undefined otherwise (the
 * kernel's pass after the tiles applies it, on the interpreter).
 */
export function matmulEpilogueTail(ctx: KernelContextV1, y: Float32Array, dims: readonly number[]): number[] | undefined {
  if (!ctx.attrs.has('description') || ctx.tensor(2)) return undefined;
  if (!['', 'None'].includes(ctx.attrs.string('activation', ''))) return undefined;
  const { description: d, words } = epilogueDescription(ctx, dims);
  const operands = epilogueOperands(ctx, y);
  checkOperands(d, operands, y, ctx.nodeName);
  checkLayout(d, ctx, y);
  const memory = ctx.memory;
  if (!memory || !operands.every((x) => x.buffer === memory.buffer) || !hasWasmSimd() || !emittable(d)) return undefined;
  for (const x of operands.slice(1))
    if (x.byteOffset < y.byteOffset + y.byteLength && y.byteOffset < x.byteOffset + x.byteLength) return undefined;
  return tailOf(words, operands);
}

/** An epilogue is over [N, C, spatial] (Conv) or [1, rows, N] (MatMul) of the output: what a tile's block addresses. */
function checkLayout(d: KernelDescription, ctx: KernelContextV1, y: Float32Array): void {
  checkEpilogueKind(d, ctx.nodeName);
  const [n, c, p] = d.shape as [number, number, number];
  if (d.shape.length === 3 && n * c * p === y.length && kernelElements(d) === y.length) return;
  throw TsgeError.of('TSGE-E7103', {
    node: ctx.nodeName,
    kernel: ctx.nodeName,
    reason: `an epilogue over [${d.shape.join(',')}] is not a 3-D view of the ${y.length}-element output`,
  });
}

/** A description that only clamps its single input (Relu, Clip lowered): the bounds. */
function clampChain(d: KernelDescription): { lo: number; hi: number } | undefined {
  if (d.inputs.length !== 1) return undefined;
  let lo = Number.NEGATIVE_INFINITY;
  let hi = Number.POSITIVE_INFINITY;
  let value = 0;
  const constant = (r: number) => (r >= 1 && r < 1 + d.constants.length ? (d.constants[r - 1] as number) : undefined);
  for (const [i, ins] of d.instructions.entries()) {
    if (ins.a !== value) return undefined;
    const c = constant(ins.b);
    // lower bounds first, then upper ones: the store applies max(lo) then min(hi)
    if (ins.op === KOp.relu && hi === Number.POSITIVE_INFINITY) lo = Math.max(lo, 0);
    else if (ins.op === KOp.clampLo && c !== undefined && hi === Number.POSITIVE_INFINITY) lo = Math.max(lo, c);
    else if (ins.op === KOp.clampHi && c !== undefined) hi = Math.min(hi, c);
    else if (ins.op !== KOp.copy) return undefined;
    value = 1 + d.constants.length + i;
  }
  return value === d.output && lo <= hi ? { lo, hi } : undefined;
}

/** Runs the generated epilogue of a tile's arguments (its `tail`, from index `at`) over rows of one image. */
export interface TileEpilogue {
  /** Channels [c0, c1) × positions [p0, p1) of image n. */
  run(n: number, c0: number, c1: number, p0: number, p1: number): void;
}

/**
 * Epilogue descriptions decoded lately, with their words. Every tile of a node carries the same
 * words, so a tile finds its description by comparing them in place instead of building a string
 * key from them (which, per tile on every thread, was most of what a run allocated).
 */
const recent: { readonly words: readonly number[]; readonly d: KernelDescription }[] = [];
const RECENT = 16;

function descriptionAt(args: readonly number[], from: number, length: number): KernelDescription {
  for (let e = 0; e < recent.length; e++) {
    const entry = recent[e] as (typeof recent)[number];
    const words = entry.words;
    if (words.length !== length) continue;
    let same = true;
    for (let i = 0; same && i < length; i++) same = words[i] === args[from + i];
    if (same) return entry.d;
  }
  const words = args.slice(from, from + length);
  const d = cachedDescription(words, words.join(','), 'conv epilogue');
  recent.unshift({ words, d });
  if (recent.length > RECENT) recent.pop();
  return d;
}

/** One call's arguments per input count, refilled per block. */
const callArgs = new Map<number, number[]>();

/** The tile epilogue in `args` from index `at`, undefined when the tail is empty. */
export function tileEpilogue(memory: LinearMemory, args: readonly number[], at: number): TileEpilogue | undefined {
  const count = args[at] as number;
  if (!count) return undefined;
  const length = args[at + 1 + count] as number;
  const d = descriptionAt(args, at + 2 + count, length);
  const box = compiledBox(memory, d);
  if (!box || count !== d.inputs.length) throw new Error(`conv epilogue: ${count} addresses for ${d.inputs.length} inputs, or no SIMD`);
  const C = d.shape[1] as number;
  const P = d.shape[2] as number;
  const k = count;
  let call = callArgs.get(k);
  if (!call) {
    call = new Array<number>(2 * k + 4).fill(0);
    callArgs.set(k, call);
  }
  const buffer = call;
  // an epilogue lives within its tile's call, while `args` (perhaps a helper's refilled array) holds this tile
  const y = args[at + 1] as number;
  return {
    run(n, c0, c1, p0, p1) {
      if (c1 <= c0 || p1 <= p0) return;
      for (let i = 0; i < k; i++) {
        const s = d.inputs[i]?.strides as readonly number[];
        buffer[i] = (args[at + 1 + i] as number) + (n * (s[0] as number) + c0 * (s[1] as number) + p0 * (s[2] as number)) * 4;
        buffer[k + 3 + i] = (s[1] as number) * 4;
      }
      buffer[k] = y + ((n * C + c0) * P + p0) * 4;
      buffer[k + 1] = p1 - p0;
      buffer[k + 2] = c1 - c0;
      buffer[2 * k + 3] = P * 4;
      box(...buffer);
    },
  };
}

function activationOf(ctx: KernelContextV1): { activation: string; params: readonly number[] } {
  return {
    activation: ctx.attrs.has('activation') ? ctx.attrs.string('activation') : 'None',
    params: ctx.attrs.has('activation_params') ? ctx.attrs.floats('activation_params') : [],
  };
}

function clampOf(activation: string, params: readonly number[]): { lo: number; hi: number } | undefined {
  if (activation === 'Relu') return { lo: 0, hi: Number.POSITIVE_INFINITY };
  if (activation === 'Clip') return { lo: params[0] ?? Number.NEGATIVE_INFINITY, hi: params[1] ?? Number.POSITIVE_INFINITY };
  return undefined;
}

/**
 * A fused Conv's activation as one pass over its output (SIMD for outputs in device memory), for
 * the paths without an in-GEMM epilogue; undefined when the node has none.
 */
export function activationPass(ctx: KernelContextV1): ((data: Float32Array) => void) | undefined {
  const { activation, params } = activationOf(ctx);
  if (activation === 'None') return undefined;
  const memory = ctx.memory;
  const kernels = memory && simdKernels(memory);
  const simd = kernels && simdActivation(kernels, activation, params);
  return (data) =>
    simd && data.buffer === memory?.buffer ? simd(data.byteOffset, data.length) : applyActivation(data, activation, params);
}

/** The SIMD elementwise kernel for an activation applied in place, when there is one. */
function simdActivation(
  k: SimdKernelExports,
  activation: string,
  params: readonly number[],
): ((byte: number, count: number) => void) | undefined {
  switch (activation) {
    case 'Relu':
      return (at, n) => k.relu(at, at, n);
    case 'Clip':
      return (at, n) => k.clip(at, at, n, params[0] ?? Number.NEGATIVE_INFINITY, params[1] ?? Number.POSITIVE_INFINITY);
    case 'HardSwish':
      return (at, n) => k.hardSwish(at, at, n);
    case 'HardSigmoid':
      return (at, n) => k.hardSigmoid(at, at, n, params[0] ?? 0.2, params[1] ?? 0.5);
    case 'Sigmoid':
      return (at, n) => k.sigmoid(at, at, n);
    case 'Tanh':
      return (at, n) => k.tanh(at, at, n);
    case 'LeakyRelu':
      return (at, n) => k.leakyRelu(at, at, n, params[0] ?? 0.01);
    default:
      return undefined;
  }
}
