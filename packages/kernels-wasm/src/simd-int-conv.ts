import { type HostTensor, type KernelContextV1, type KernelV1, type LinearMemory, TSGE_DOMAIN, readNumber } from '@tsge/metadef';
import { convProblem, defineKernel, packedPanelsOf, packedWeightOf, requantizedRange } from '@tsge/kernels-js/kernel-support';
import { INT_PANEL_BYTES, PACKED_MATMUL_INTEGER, REQUANTIZED_CONV, dimProduct, paddedRow } from '@tsge/ops/kernel-support';
import { extraModule } from './extra-modules.js';
import { INT_FLAGS, type IntConvExports, intConvFunctions } from './int-conv-module.js';
import { INT_CONV_PLAN, IntConvPath, chooseIntConv, planIntConvNode, recordedIntConvPlan } from './int-conv-plan.js';
import {
  INT_MATMUL_PLAN,
  IntMatMulPath,
  type IntMatMulPlan,
  chooseIntMatMul,
  intMatMulRows,
  intMatMulTiles,
  planIntMatMulNode,
  recordedIntMatMulPlan,
} from './int-matmul-plan.js';
import { bytesOf, float32Of, int32Of } from './memory-views.js';
import { threadWorkspace } from './thread-workspace.js';
import { type NumberTuple, runTiles, tileFunction } from './tiles.js';

/**
 * ConvInteger and tsge::RequantizedConv on uint8/int8 tensors in device memory, with the integer
 * kernels of int-conv-module.ts: depthwise 2-D convolutions per channel over padded i16 planes,
 * every other 2-D convolution as a GEMM per group over i16 pair panels packed into the thread's
 * workspace (pointwise ones by the wasm packer, k×k ones through the window's gather table), split
 * into tiles across threads. The store writes int32 (ConvInteger) or the requantized bytes. Results
 * equal the reference kernels' (integer accumulation is exact; the requantization runs the same
 * float32 operations); whatever these paths do not cover goes to the reference kernel.
 */

const intModule = extraModule('int-conv', intConvFunctions);
const exportsOf = (memory: LinearMemory) => intModule(memory) as unknown as IntConvExports | undefined;

/** Workspace header: 32 bytes of store scratch, then one zero byte (the absent weight zero point). */
const HEADER = 64;
const ZERO_BYTE = 48;
/** Panel bytes per tile step: about a quarter of the workspace, so the panel stays in cache. */
const PANEL_BYTES = INT_PANEL_BYTES;

const align64 = (n: number): number => (n + 63) & ~63;

function inDeviceMemory(memory: LinearMemory, ...tensors: (HostTensor | undefined)[]): boolean {
  for (const t of tensors) if (t && (ArrayBuffer.isView(t.data) ? t.data.buffer !== memory.buffer : true)) return false;
  return true;
}

const byteOffset = (t: HostTensor): number => (t.data as Uint8Array).byteOffset;
const isByteType = (t: HostTensor | undefined): boolean => t?.type === 'uint8' || t?.type === 'int8';

/** Addresses and strides of the per-output-channel operands, or undefined when they do not fit. */
interface ChannelOperands {
  readonly wzp: number;
  readonly wzStride: number;
  readonly bias: number;
  readonly biasStride: number;
  readonly scale: number;
  readonly scaleStride: number;
}

/** One plan per context, as the float Conv kernel keeps (tensor offsets do not move in a static model). */
interface IntPlan {
  readonly signature: readonly number[];
  readonly outDims: readonly number[];
  readonly yOffset: number;
  readonly tile: (typeof INT_TILES)[number];
  readonly tiles: readonly (readonly number[])[];
}
const plans = new WeakMap<KernelContextV1, IntPlan>();

function channelOperands(
  memory: LinearMemory,
  w: HostTensor,
  wz: HostTensor | undefined,
  bias: HostTensor | undefined,
  scale: HostTensor | undefined,
  channels: number,
): ChannelOperands | undefined {
  const perChannel = (t: HostTensor | undefined) => t === undefined || t.data.length === 1 || t.data.length === channels;
  if (!perChannel(wz) || !perChannel(bias) || !perChannel(scale)) return undefined;
  if (wz && (wz.type !== w.type || !inDeviceMemory(memory, wz))) return undefined;
  if (bias && (bias.type !== 'int32' || !inDeviceMemory(memory, bias))) return undefined;
  if (scale && (scale.type !== 'float32' || !inDeviceMemory(memory, scale))) return undefined;
  const stride = (t: HostTensor | undefined, bytes: number) => (t && t.data.length > 1 ? bytes : 0);
  return {
    wzp: wz ? byteOffset(wz) : -1,
    wzStride: stride(wz, 1),
    bias: bias ? byteOffset(bias) : -1,
    biasStride: stride(bias, 4),
    scale: scale ? byteOffset(scale) : -1,
    scaleStride: stride(scale, 4),
  };
}

/** Whether acc + bias stays in int32 for K products of bytes minus zero points (each at most 255²). */
function sumsFitInt32(bias: HostTensor | undefined, K: number): boolean {
  let most = 0;
  if (bias) for (let i = 0; i < bias.data.length; i++) most = Math.max(most, Math.abs(readNumber(bias, i)));
  return most + K * 255 * 255 < 2 ** 31;
}

/** Runs the convolution on the integer SIMD paths; false when they do not apply (nothing written). */
/** One zero point for the whole tensor, as the reference reads it (0 when absent). */
const zeroPoint = (t: HostTensor | undefined): number => (t && t.data.length > 0 ? readNumber(t, 0) : 0);

/**
 * Whether the plan made for this context still fits its tensors: their offsets, the thread count,
 * the zero points' values (inputs of the graph may change them from run to run) and the input dims.
 * Compared field by field: this runs every run of every integer convolution.
 */
function planFits(plan: IntPlan, x: HostTensor, w: HostTensor, threads: number, zx: number, zp: number): boolean {
  const s = plan.signature;
  if (s.length !== 5 + x.dims.length || s[0] !== byteOffset(x) || s[1] !== byteOffset(w) || s[2] !== threads || s[3] !== zx || s[4] !== zp)
    return false;
  for (let i = 0; i < x.dims.length; i++) if (s[5 + i] !== x.dims[i]) return false;
  return true;
}

function convolve(ctx: KernelContextV1, requantized: boolean): boolean {
  const memory = ctx.memory;
  const x = ctx.tensor(0);
  const w = ctx.tensor(1);
  const threads = ctx.parallel?.threads ?? 1;
  const old = plans.get(ctx);
  if (old && memory && x && w) {
    const yzp = requantized ? ctx.tensor(6) : undefined;
    if (planFits(old, x, w, threads, zeroPoint(ctx.tensor(2)), zeroPoint(yzp))) {
      const y = ctx.output(0, old.outDims, requantized ? (yzp as HostTensor).type : 'int32');
      if (byteOffset(y) === old.yOffset) {
        runTiles(memory, ctx.parallel, old.tile, old.tiles);
        return true;
      }
    }
  }
  // the compiler's packed weight (int16 rows in the GEMM's layout), read in place
  const packed = requantized && w ? packedWeightOf(ctx, w) : undefined;
  if (!memory || !x || !w || !isByteType(x) || !(packed || isByteType(w)) || x.dims.length !== 4) return false;
  if (!exportsOf(memory) || !threadWorkspace(memory) || !inDeviceMemory(memory, x, w)) return false;
  const xz = ctx.tensor(2);
  const wz = ctx.tensor(3);
  if ((xz && xz.type !== x.type) || (wz && wz.type !== w.type)) return false;
  const bias = requantized ? ctx.tensor(4) : undefined;
  const scale = requantized ? ctx.tensor(5) : undefined;
  const yzp = requantized ? ctx.tensor(6) : undefined;
  if (requantized && (!scale || !isByteType(yzp))) return false;
  const zx = zeroPoint(xz);
  const zp = zeroPoint(yzp);
  const signature = [byteOffset(x), byteOffset(w), threads, zx, zp, ...x.dims];
  const p = convProblem(ctx, x, packed ?? w);
  // the compiler's plan for static shapes (checked against this task), else one made now
  const recorded = ctx.attrs.has(INT_CONV_PLAN) ? ctx.attrs.ints(INT_CONV_PLAN) : undefined;
  const split = recorded ? recordedIntConvPlan(ctx.nodeName, recorded, p, threads) : chooseIntConv(p, threads);
  if (split.path === IntConvPath.reference) return false;
  const ops = channelOperands(memory, w, wz, bias, scale, p.outChannels);
  if (!ops) return false;
  const outType = requantized ? (yzp as HostTensor).type : 'int32';
  const y = ctx.output(0, [p.batch, p.outChannels, ...p.geometry.outDims], outType);
  if (!inDeviceMemory(memory, y)) return false;
  const [lo, hi] = yzp ? requantizedRange(ctx, yzp.type) : [0, 0];
  const exact = requantized && ctx.attrs.int('exact_product', 0) === 1;
  // the exact requantization sums in int32 lanes where the reference sums exactly: only sums that fit
  if (exact && !sumsFitInt32(bias, (p.inChannels / p.group) * dimProduct(p.geometry.kernel))) return false;
  const flags =
    (w.type === 'int8' ? INT_FLAGS.weightsSigned : 0) |
    (x.type === 'int8' ? INT_FLAGS.inputSigned : 0) |
    (requantized ? (outType === 'int8' ? INT_FLAGS.outSigned : 0) : INT_FLAGS.int32Out) |
    (bias && bias.data.length > 0 ? INT_FLAGS.bias : 0) |
    (exact ? INT_FLAGS.exactProduct : 0);
  const store = [flags, ops.bias, ops.biasStride, ops.scale, ops.scaleStride, lo - zp, hi - zp, zp];
  const cg = p.inChannels / p.group;
  const mg = p.outChannels / p.group;
  const g = p.geometry;
  const [H, W] = g.inDims as [number, number];
  const [OH, OW] = g.outDims as [number, number];
  const [KH, KW] = g.kernel as [number, number];
  const [sh, sw] = g.strides as [number, number];
  const [dh, dw] = g.dilations as [number, number];
  const [pt, pl] = g.padsBegin as [number, number];
  const workspace = threadWorkspace(memory) as { offset: number; bytes: number };
  const ySize = outType === 'int32' ? 4 : 1;
  let plan: IntPlan | undefined;
  if (split.path === IntConvPath.depthwise) {
    // the depthwise kernel reads the weight bytes (the compiler packs only GEMM weights)
    if (packed) return false;
    // zero-padded planes: rows of sw phases of Lp lanes (a multiple of 8), slack for the last
    // vector, dh zero rows past the last for the row pairs; a row's last vector reads up to 16
    // bytes past it
    if (byteOffset(x) + x.data.length + 16 > memory.buffer.byteLength) return false;
    const Hp = Math.max(H + pt, (OH - 1) * sh + (KH - 1) * dh + 1);
    const reach = Math.floor(((KW - 1) * dw) / sw);
    const Lp = (Math.max(Math.ceil((W + pl) / sw), ((OW + 7) & ~7) + reach) + 8 + 7) & ~7;
    const rowPairs = (KH + 1) >> 1;
    const taps = HEADER;
    const plane = align64(taps + rowPairs * KW * 16);
    const planeBytes = (Hp + dh) * sw * Lp * 2;
    const pairPlane = align64(plane + planeBytes);
    // strides 1 and 2 build the pair plane from the bytes, padding rows read from a row of zx
    const zxRow = align64(pairPlane + Hp * sw * Lp * 4);
    if (zxRow + align64(W + 32) > workspace.bytes) return false;
    // per tap pair: its byte offset in the pair plane, the taps (rows 2r and 2r + 1, or -1)
    const tapPairs: number[] = [];
    for (let rp = 0; rp < rowPairs; rp++)
      for (let kj = 0; kj < KW; kj++) {
        const col = kj * dw;
        const ki = 2 * rp;
        tapPairs.push(((ki * dh * sw + (col % sw)) * Lp + Math.floor(col / sw)) * 4, ki * KW + kj, ki + 1 < KH ? (ki + 1) * KW + kj : -1);
      }
    const geometry = [H, W, OH, OW, KH * KW, taps, plane, Lp, sh * sw * Lp * 4, pt * sw * Lp * 2, sw, zx, pl, planeBytes];
    // output row oi reads pair rows oi·sh + 2r·dh: all multiples of gcd(sh, 2·dh)
    const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
    // a 3×3 filter at stride 1 runs two output rows a step, reading only the even pair rows
    const twoRows = KH === 3 && KW === 3 && sh === 1 && sw === 1 && dh === 1;
    const pairing = [rowPairs * KW, pairPlane, Hp, dh * sw * Lp * 2, twoRows ? 2 : gcd(sh, 2 * dh), zxRow, align64(W + 32), pt, dh];
    const tiles: number[][] = [];
    for (let n = 0; n < p.batch; n++)
      for (const [c0, c1] of split.ranges) {
        const base = n * p.outChannels + c0;
        tiles.push([
          byteOffset(x) + base * H * W,
          byteOffset(w) + c0 * KH * KW,
          byteOffset(y) + base * OH * OW * ySize,
          c1 - c0,
          c0,
          ops.wzp,
          ops.wzStride,
          ...store,
          ...geometry,
          ...pairing,
          ...tapPairs,
        ]);
      }
    plan = { signature, outDims: y.dims, yOffset: byteOffset(y), tile: depthwiseIntTile, tiles };
  } else {
    const K = cg * KH * KW;
    const P = OH * OW;
    const pairs = (K + 1) >> 1;
    const pointwise = KH === 1 && KW === 1 && sh === 1 && sw === 1 && pt === 0 && pl === 0 && OH === H && OW === W;
    // column strides 1 and 2 gather from a padded copy of the group's planes at the workspace's
    // end (padding bytes equal to zx, rows with slack for a step's reads), with a table of the
    // row pairs' window origins before it
    const Hq = (OH - 1) * sh + (KH - 1) * dh + 1;
    const Wq = (OW + 8) * sw + (KW - 1) * dw + 16;
    const paddedBytes = align64(cg * Hq * Wq) + align64(pairs * 8);
    const padded = !pointwise && (sw === 1 || sw === 2) && paddedBytes <= workspace.bytes / 2;
    const tableAt = (workspace.bytes - paddedBytes) & ~63;
    // the panel (and up to 28 bytes the padded gather writes past it), then the packed weight rows
    // of one 4-row block
    const budget = Math.min(PANEL_BYTES, workspace.bytes - HEADER - 128 - (pairs + 8) * 16 - (padded ? paddedBytes + 64 : 0));
    const NP = Math.min((P + 7) & ~7, Math.floor(budget / (pairs * 4)) & ~7);
    if (NP < 8) return false;
    // one byte past an odd K's last weight row is read (and multiplied by the zero pad row)
    if (!packed && byteOffset(w) + w.data.length + 16 > memory.buffer.byteLength) return false;
    const rowBytes = packed ? paddedRow(K) * 2 : K;
    if (byteOffset(x) + x.data.length + 16 > memory.buffer.byteLength) return false;
    // columns or rows of output channels, as planned
    const byColumns = split.byColumns;
    const tiles: number[][] = [];
    for (let n = 0; n < p.batch; n++)
      for (let grp = 0; grp < p.group; grp++) {
        for (const [a, b] of split.ranges) {
          const [m0, m1, p0, p1] = byColumns ? [0, mg, a, b] : [a, b, 0, P];
          const row = grp * mg + m0;
          tiles.push([
            byteOffset(x) + (n * p.inChannels + grp * cg) * H * W,
            byteOffset(w) + row * rowBytes,
            byteOffset(y) + (n * p.outChannels + row) * P * ySize,
            m1 - m0,
            K,
            P,
            p0,
            p1,
            NP,
            zx,
            pointwise ? 0 : padded ? 2 : 1,
            ops.wzp < 0 ? -1 : ops.wzp + row * ops.wzStride,
            ops.wzStride,
            flags,
            ops.bias < 0 ? -1 : ops.bias + row * ops.biasStride,
            ops.biasStride,
            ops.scale < 0 ? -1 : ops.scale + row * ops.scaleStride,
            ops.scaleStride,
            lo - zp,
            hi - zp,
            zp,
            cg,
            H,
            W,
            OW,
            KH,
            KW,
            sh,
            sw,
            dh,
            dw,
            pt,
            pl,
            tableAt,
            tableAt + align64(pairs * 8),
            Hq,
            Wq,
            packed ? 1 : 0,
          ]);
        }
      }
    plan = { signature, outDims: y.dims, yOffset: byteOffset(y), tile: gemmIntTile, tiles };
  }
  plans.set(ctx, plan);
  runTiles(memory, ctx.parallel, plan.tile, plan.tiles);
  return true;
}

/** This thread's workspace, with the zero byte set. */
function workspaceOf(memory: LinearMemory): { offset: number; bytes: number } {
  const ws = threadWorkspace(memory);
  if (!ws) throw new Error('the integer convolution tiles need a thread workspace');
  bytesOf(memory)[ws.offset + ZERO_BYTE] = 0;
  return ws;
}

function kernelsOf(memory: LinearMemory): IntConvExports {
  const k = exportsOf(memory);
  if (!k) throw new Error('the integer convolution tiles need WebAssembly SIMD');
  return k;
}

const KERNEL_NAMES = ['igemm', 'igemv', 'dwChannels'] as const;
type KernelName = (typeof KERNEL_NAMES)[number];
/** Per module's exports, by kernel and flags (a number: no key string built per tile), the function `specialised` found. */
const specialisations = new WeakMap<IntConvExports, Map<number, (...args: number[]) => void>>();

/** The copy of a kernel specialised for these flags (the constant flags drop its branches), else the generic one. */
function specialised(k: IntConvExports, name: KernelName, flags: number): (...args: number[]) => void {
  let known = specialisations.get(k);
  if (!known) {
    known = new Map();
    specialisations.set(k, known);
  }
  const key = flags * KERNEL_NAMES.length + KERNEL_NAMES.indexOf(name);
  let fn = known.get(key);
  if (!fn) {
    fn = (k as unknown as Record<string, ((...args: number[]) => void) | undefined>)[`${name}_${flags}`] ?? k[name];
    known.set(key, fn);
  }
  return fn;
}

/** Tile: output channels [0, count) of a depthwise convolution, addresses at the first one. */
const depthwiseIntTile = tileFunction('simd.int.depthwise', (memory, t) => {
  const [
    x,
    w,
    y,
    count,
    c0,
    wzp,
    wzStride,
    flags,
    bias,
    biasStride,
    scale,
    scaleStride,
    lo,
    hi,
    zp,
    H,
    W,
    OH,
    OW,
    KK,
    taps,
    plane,
    Lp,
    rowStep,
    padOffset,
    sw,
    zx,
    pl,
    ,
    KP,
    pairPlane,
    Hp,
    dhBytes,
    pairStep,
    zxRow,
    zxRowBytes,
    pt,
    dh,
  ] = t as number[] as NumberTuple<38>;
  const ws = workspaceOf(memory);
  const k = kernelsOf(memory);
  // the i16 plane and the pair plane cleared (their padding lanes stay zero), the zx row set
  const bytes = bytesOf(memory);
  bytes.fill(0, ws.offset + plane, ws.offset + zxRow);
  bytes.fill(zx & 0xff, ws.offset + zxRow, ws.offset + zxRow + zxRowBytes);
  const entries = int32Of(memory);
  const first = (ws.offset + taps) >> 2;
  for (let i = 0; i < KP; i++) for (let f = 0; f < 3; f++) entries[first + i * 4 + f] = t[38 + i * 3 + f] as number;
  specialised(k, 'dwChannels', flags)(
    x,
    w,
    wzp < 0 ? ws.offset + ZERO_BYTE : wzp,
    wzp < 0 ? 0 : wzStride,
    y,
    count,
    c0,
    H,
    W,
    OH,
    OW,
    KK,
    ws.offset + taps,
    ws.offset + plane,
    Lp,
    rowStep,
    padOffset,
    sw,
    zx,
    flags,
    bias,
    biasStride,
    scale < 0 ? ws.offset : scale,
    scaleStride,
    lo,
    hi,
    zp,
    ws.offset,
    pl,
    KP,
    ws.offset + pairPlane,
    Hp,
    dhBytes,
    pairStep,
    ws.offset + zxRow,
    pt,
    dh,
  );
});

/** Tile: rows [0, M) × columns [p0, p1) of one group's GEMM, in panels of NP columns. */
const gemmIntTile = tileFunction('simd.int.gemm', (memory, t) => gemmInt(memory, t, workspaceOf(memory)));

/** Workspace byte of the one requantization scale a QLinearMatMul tile stores (past the zero byte). */
const SCALE_WORD = 56;

/**
 * Tile: a QLinearMatMul block, the gemm tile's arguments then its float32 output scale, which this
 * thread writes into its workspace for the store to read (it has no tensor of its own).
 */
const qlinearMatMulTile = tileFunction('simd.int.qlinearMatMul', (memory, t) => {
  const ws = workspaceOf(memory);
  float32Of(memory)[(ws.offset + SCALE_WORD) >> 2] = t[33] as number;
  gemmInt(memory, [...t.slice(0, 16), ws.offset + SCALE_WORD, ...t.slice(17, 33)], ws);
});

/**
 * Tile: rows [0, M) × columns [n0, n1) of A·B over the compiler's panels of B (packed-int-panels.ts
 * in @tsge/ops), read in place: one igemm per panel the columns cross. Arguments: A's first row, the
 * panels, Y's first row, M, K, N, NP, n0, n1, A's zero point (address or -1) and stride, flags, the
 * store's range and zero point, and the requantizing multiplier (unused for int32 sums).
 */
const panelsMatMulTile = tileFunction('simd.int.matmulPanels', (memory, t) => {
  const [a, b, y, M, K, N, NP, n0, n1, azp, azStride, flags, lo, hi, zp, scale] = t as number[] as NumberTuple<16>;
  const ws = workspaceOf(memory);
  const k = kernelsOf(memory);
  const int32 = (flags & INT_FLAGS.int32Out) !== 0;
  if (!int32) float32Of(memory)[(ws.offset + SCALE_WORD) >> 2] = scale;
  const K2 = (K + 1) & ~1;
  const N8 = (N + 7) & ~7;
  for (let c = n0; c < n1; ) {
    const q = Math.floor(c / NP);
    const width = Math.min(NP, N8 - q * NP);
    const end = Math.min(n1, q * NP + width);
    specialised(k, 'igemm', flags)(
      M,
      K,
      a,
      K,
      azp < 0 ? ws.offset + ZERO_BYTE : azp,
      azp < 0 ? 0 : azStride,
      b + q * NP * K2 * 2 + (c - q * NP) * 4,
      width,
      end - c,
      y + c * (int32 ? 4 : 1),
      N,
      flags,
      -1,
      0,
      ws.offset + SCALE_WORD,
      0,
      lo,
      hi,
      zp,
      ws.offset,
      ws.offset + HEADER,
      0,
    );
    c = end;
  }
});

/**
 * The padded copy of a gathered gemm tile's input planes (padding bytes equal to zx) and the
 * table of its row pairs' window origins, written into this thread's workspace. Only the padded
 * rows the tile's output rows read are written (a tile of an eighth of the outputs copied all of
 * them, about as long as its product took on a 3-channel first layer).
 */
function padInput(memory: LinearMemory, t: readonly number[], ws: { offset: number; bytes: number }, zx: number): void {
  const [x, , , , K, , p0, p1, , , , , , , , , , , , , , cg, H, W, OW, KH, KW, sh, , dh, dw, pt, pl, tableAt, padAt, Hq, Wq] =
    t as number[] as NumberTuple<37>;
  const bytes = bytesOf(memory);
  const pad = zx & 0xff;
  const first = Math.floor(p0 / OW) * sh;
  const end = Math.min(Hq, Math.floor((p1 - 1) / OW) * sh + (KH - 1) * dh + 1);
  for (let ch = 0; ch < cg; ch++)
    for (let r = first; r < end; r++) {
      const at = ws.offset + padAt + (ch * Hq + r) * Wq;
      const iy = r - pt;
      if (iy < 0 || iy >= H) {
        bytes.fill(pad, at, at + Wq);
        continue;
      }
      bytes.fill(pad, at, at + pl);
      const from = x + (ch * H + iy) * W;
      bytes.copyWithin(at + pl, from, from + W);
      bytes.fill(pad, at + pl + W, at + Wq);
    }
  const pairs = (K + 1) >> 1;
  const words = int32Of(memory);
  const table = (ws.offset + tableAt) >> 2;
  for (let r = 0; r < pairs * 2; r++) {
    if (r >= K) {
      words[table + r] = -1;
      continue;
    }
    const ch = Math.floor(r / (KH * KW));
    const ki = Math.floor(r / KW) % KH;
    const kj = r % KW;
    words[table + r] = ch * Hq * Wq + ki * dh * Wq + kj * dw;
  }
}

function gemmInt(memory: LinearMemory, t: readonly number[], ws: { offset: number; bytes: number }): void {
  const [x, w, y, M, K, P, p0, p1, NP, zx, gathered, wzp, wzStride, flags, bias, biasStride, scale, scaleStride, lo, hi, zp] =
    t as number[] as NumberTuple<21>;
  const k = kernelsOf(memory);
  const panel = ws.offset + HEADER;
  const ySize = flags & INT_FLAGS.int32Out ? 4 : 1;
  if (gathered === 2) padInput(memory, t, ws, zx);
  const signed = flags & INT_FLAGS.inputSigned ? 1 : 0;
  // the weight rows packed by the compiler (a conv tile's last argument), else bytes
  const packed = t[37] === 1;
  const ldw = packed ? paddedRow(K) * 2 : K;
  let rows = 0;
  if (!packed && !gathered && P === 1 && !(flags & INT_FLAGS.exactProduct) && M >= 4) {
    // one output column: the rows of 4 as dot products with the column, the rest below
    rows = M & ~3;
    const K16 = (K + 15) & ~15;
    const xs = new Int16Array(memory.buffer, panel, K16);
    const column = signed ? new Int8Array(memory.buffer, x, K) : new Uint8Array(memory.buffer, x, K);
    let sumX = 0;
    for (let i = 0; i < K; i++) {
      const v = (column[i] as number) - zx;
      xs[i] = v;
      sumX += v;
    }
    xs.fill(0, K);
    specialised(k, 'igemv', flags)(
      rows,
      K,
      w,
      K,
      wzp < 0 ? ws.offset + ZERO_BYTE : wzp,
      wzp < 0 ? 0 : wzStride,
      panel,
      sumX,
      y,
      flags,
      bias,
      biasStride,
      scale < 0 ? ws.offset : scale,
      scaleStride,
      lo,
      hi,
      zp,
    );
    if (rows === M) return;
  }
  /** Per-row operand addresses of row `rows` on (absent ones stay negative). */
  const at = (base: number, stride: number): number => (base < 0 ? base : base + rows * stride);
  for (let c = p0; c < p1; c += NP) {
    const np = Math.min(NP, p1 - c);
    if (gathered === 2) {
      // OW, sh, sw, the table, the padded planes and their row length, read by index (no slice per panel)
      k.packPadded(
        ws.offset + (t[34] as number),
        panel,
        NP,
        np,
        c,
        ws.offset + (t[33] as number),
        (K + 1) >> 1,
        t[36] as number,
        t[24] as number,
        t[27] as number,
        t[28] as number,
        zx,
        signed,
      );
    } else if (gathered)
      k.packWindows(
        x,
        panel,
        NP,
        np,
        c,
        t[21] as number,
        t[22] as number,
        t[23] as number,
        t[24] as number,
        t[25] as number,
        t[26] as number,
        t[27] as number,
        t[28] as number,
        t[29] as number,
        t[30] as number,
        t[31] as number,
        t[32] as number,
        zx,
        signed,
      );
    else k.packPairs(x + c, P, K, np, panel, NP, zx, flags & INT_FLAGS.inputSigned ? 1 : 0);
    specialised(k, 'igemm', flags)(
      M - rows,
      K,
      w + rows * ldw,
      ldw,
      wzp < 0 || packed ? ws.offset + ZERO_BYTE : at(wzp, wzStride),
      wzp < 0 || packed ? 0 : wzStride,
      panel,
      NP,
      np,
      y + (rows * P + c) * ySize,
      P,
      flags,
      at(bias, biasStride),
      biasStride,
      scale < 0 ? ws.offset : at(scale, scaleStride),
      scaleStride,
      lo,
      hi,
      zp,
      ws.offset,
      (panel + ((K + 1) >> 1) * NP * 4 + 63) & ~63,
      packed ? 1 : 0,
    );
  }
}

export const INT_TILES = [depthwiseIntTile, gemmIntTile, qlinearMatMulTile, panelsMatMulTile] as const;

/** The tiles of one batch's [M, K]·[K, N] product, in the gemm tile's argument layout. */
function gemmTiles(
  a: number,
  b: number,
  y: number,
  M: number,
  K: number,
  N: number,
  NP: number,
  threads: number,
  operands: { zx: number; wzp: number; wzStride: number; flags: number },
  /** Requantized byte output: the store's range (relative to zp) and zero point; else int32. */
  store?: { lo: number; hi: number; zp: number },
): number[][] {
  const ySize = store ? 1 : 4;
  return intMatMulTiles(M, N, K, threads).map(([m0, m1, p0, p1]) => {
    const wzp = operands.wzp < 0 ? -1 : operands.wzp + m0 * operands.wzStride;
    const rest = [-1, 0, -1, 0, store?.lo ?? 0, store?.hi ?? 0, store?.zp ?? 0, ...new Array<number>(12).fill(0)];
    return [b, a + m0 * K, y + m0 * N * ySize, m1 - m0, K, N, p0, p1, NP, operands.zx, 0, wzp, operands.wzStride, operands.flags, ...rest];
  });
}

/**
 * MatMulInteger of byte matrices in device memory as the integer GEMM: A's rows are the weight
 * rows (with A's zero point, one or one per row), B is packed into panels (one zero point), the
 * int32 product stored as is. A may carry batch dims over a 2-D B or match B's batch dims.
 */
function matmulInteger(ctx: KernelContextV1): boolean {
  return integerProduct(ctx, ctx.tensor(0), ctx.tensor(1), ctx.tensor(2), ctx.tensor(3));
}

/**
 * QLinearMatMul as the integer GEMM with the requantizing store: per-tensor scales and B zero
 * point, A's zero point per tensor or per row, uint8/int8 Y. The store computes
 * round_half_even(f32(acc) · f32(a_scale·b_scale / y_scale)) + y_zero_point, saturated, as
 * onnxruntime's requantization and the reference do; anything else goes to the reference.
 */
function qlinearMatMul(ctx: KernelContextV1): boolean {
  const requantize = requantizeOf(ctx, 1, 4, 6, 7);
  return !!requantize && integerProduct(ctx, ctx.tensor(0), ctx.tensor(3), ctx.tensor(2), ctx.tensor(5), requantize);
}

/** The requantizing store of a product's byte output. */
interface Requantize {
  readonly scale: number;
  readonly lo: number;
  readonly hi: number;
  readonly zp: number;
  readonly type: HostTensor['type'];
}

/**
 * QLinearMatMul's store from the inputs at these indices (one float32 scale each, one byte zero
 * point): the multiplier f32(f32(a_scale·b_scale) / y_scale) and Y's range minus its zero point;
 * undefined when the store does not cover them.
 */
function requantizeOf(ctx: KernelContextV1, aScale: number, bScale: number, yScale: number, yZero: number): Requantize | undefined {
  const scalar = (i: number): number | undefined => {
    const t = ctx.tensor(i);
    return t && t.data.length === 1 && t.type === 'float32' ? readNumber(t, 0) : undefined;
  };
  const [as, bs, ys] = [scalar(aScale), scalar(bScale), scalar(yScale)];
  const yz = ctx.tensor(yZero);
  if (as === undefined || bs === undefined || ys === undefined || !isByteType(yz) || (yz as HostTensor).data.length !== 1) return undefined;
  const zp = readNumber(yz as HostTensor, 0);
  const [lo, hi] = (yz as HostTensor).type === 'int8' ? [-128, 127] : [0, 255];
  return { scale: Math.fround(Math.fround(as * bs) / ys), lo: lo - zp, hi: hi - zp, zp, type: (yz as HostTensor).type };
}

/** A·B of byte matrices in device memory, stored as int32 or, with `requantize`, as bytes. */
function integerProduct(
  ctx: KernelContextV1,
  a: HostTensor | undefined,
  b: HostTensor | undefined,
  az: HostTensor | undefined,
  bz: HostTensor | undefined,
  requantize?: Requantize,
): boolean {
  const memory = ctx.memory;
  if (!memory || !isByteType(a) || !isByteType(b) || !exportsOf(memory) || !threadWorkspace(memory)) return false;
  const A = a as HostTensor;
  const B = b as HostTensor;
  if (A.dims.length < 2 || B.dims.length < 2 || !inDeviceMemory(memory, A, B)) return false;
  const [M, K] = A.dims.slice(-2) as [number, number];
  const [Kb, N] = B.dims.slice(-2) as [number, number];
  const aBatch = A.dims.slice(0, -2);
  const bBatch = B.dims.slice(0, -2);
  const sharedB = bBatch.every((d) => d === 1);
  if (Kb !== K || K === 0 || (!sharedB && (aBatch.length !== bBatch.length || aBatch.some((d, i) => d !== bBatch[i])))) return false;
  if (az && (az.type !== A.type || (az.data.length !== 1 && az.data.length !== M) || !inDeviceMemory(memory, az))) return false;
  if (bz && (bz.type !== B.type || bz.data.length !== 1)) return false;
  // the requantizing store sums in int32 lanes: only sums that fit
  if (requantize && !sumsFitInt32(undefined, K)) return false;
  const batches = aBatch.reduce((p, d) => p * d, 1);
  const y = ctx.output(0, [...aBatch, M, N], requantize ? requantize.type : 'int32');
  if (!inDeviceMemory(memory, y)) return false;
  if (byteOffset(A) + A.data.length + 16 > memory.buffer.byteLength || byteOffset(B) + B.data.length + 16 > memory.buffer.byteLength)
    return false;
  const pairs = (K + 1) >> 1;
  const workspace = threadWorkspace(memory) as { bytes: number };
  const budget = Math.min(PANEL_BYTES, workspace.bytes - HEADER - 64 - (pairs + 8) * 16);
  const NP = Math.min((N + 7) & ~7, Math.floor(budget / (pairs * 4)) & ~7);
  if (NP < 8) return false;
  const operands = {
    zx: bz ? readNumber(bz, 0) : 0,
    wzp: az ? byteOffset(az) : -1,
    wzStride: az && az.data.length > 1 ? 1 : 0,
    flags:
      (requantize ? (requantize.type === 'int8' ? INT_FLAGS.outSigned : 0) : INT_FLAGS.int32Out) |
      (A.type === 'int8' ? INT_FLAGS.weightsSigned : 0) |
      (B.type === 'int8' ? INT_FLAGS.inputSigned : 0),
  };
  const ySize = requantize ? 1 : 4;
  const threads = ctx.parallel?.threads ?? 1;
  const tiles: number[][] = [];
  for (let i = 0; i < batches; i++)
    tiles.push(
      ...gemmTiles(
        byteOffset(A) + i * M * K,
        byteOffset(B) + (sharedB ? 0 : i * K * N),
        byteOffset(y) + i * M * N * ySize,
        M,
        K,
        N,
        NP,
        threads,
        operands,
        requantize,
      ),
    );
  if (requantize)
    runTiles(
      memory,
      ctx.parallel,
      qlinearMatMulTile,
      tiles.map((t) => [...t, requantize.scale]),
    );
  else runTiles(memory, ctx.parallel, gemmIntTile, tiles);
  return true;
}

const matmulPlans = new WeakMap<KernelContextV1, { ints: readonly number[] | undefined; key: string; plan: IntMatMulPlan }>();

/** The compiler's plan for static shapes, checked against this task once per context, else one made now. */
function intMatMulPlan(ctx: KernelContextV1, task: { rows: number; n: number; k: number }, threads: number): IntMatMulPlan {
  const ints = ctx.attrs.has(INT_MATMUL_PLAN) ? ctx.attrs.ints(INT_MATMUL_PLAN) : undefined;
  const key = `${task.rows},${task.n},${task.k},${threads}`;
  const known = matmulPlans.get(ctx);
  if (known && known.ints === ints && known.key === key) return known.plan;
  const plan = ints ? recordedIntMatMulPlan(ctx.nodeName, ints, task, threads) : chooseIntMatMul(task.rows, task.n, task.k, threads);
  matmulPlans.set(ctx, { ints, key, plan });
  return plan;
}

/**
 * tsge::PackedMatMulInteger: A's rows as the GEMM's weight rows (A's zero point one or one per
 * row), the compiler's panels of B − b_zero_point read in place, the int32 sums stored as they are
 * or requantized as QLinearMatMul's (per-tensor scales). Anything else goes to the reference kernel.
 */
function packedIntMatMul(ctx: KernelContextV1): boolean {
  const memory = ctx.memory;
  const a = ctx.tensor(0);
  const b = ctx.tensor(1);
  if (!memory || !a || !b || !isByteType(a) || !exportsOf(memory) || !threadWorkspace(memory)) return false;
  const { k: K, n: N, np: NP } = packedPanelsOf(ctx, b);
  if (a.dims.length < 2 || a.dims[a.dims.length - 1] !== K || !inDeviceMemory(memory, a, b)) return false;
  const M = a.dims[a.dims.length - 2] as number;
  const az = ctx.tensor(2);
  if (az && (az.type !== a.type || (az.data.length !== 1 && az.data.length !== M) || !inDeviceMemory(memory, az))) return false;
  const requantize = ctx.tensor(6) ? requantizeOf(ctx, 3, 4, 5, 6) : undefined;
  if (ctx.tensor(6) && !requantize) return false;
  // igemm's 4-row block scratch, and the 16 bytes its vector loads read past A's last row
  const workspace = threadWorkspace(memory) as { bytes: number };
  if (HEADER + ((K + 1) >> 1) * 16 + 128 > workspace.bytes || byteOffset(a) + a.data.length + 16 > memory.buffer.byteLength) return false;
  const { rows, batches } = intMatMulRows(a.dims, az?.data.length ?? 0);
  const threads = ctx.parallel?.threads ?? 1;
  const plan = intMatMulPlan(ctx, { rows, n: N, k: K }, threads);
  if (plan.path !== IntMatMulPath.gemm) return false;
  const y = ctx.output(0, [...a.dims.slice(0, -1), N], requantize ? requantize.type : 'int32');
  if (!inDeviceMemory(memory, y)) return false;
  const ySize = requantize ? 1 : 4;
  const flags =
    (requantize ? (requantize.type === 'int8' ? INT_FLAGS.outSigned : 0) : INT_FLAGS.int32Out) |
    (a.type === 'int8' ? INT_FLAGS.weightsSigned : 0);
  const azStride = az && az.data.length > 1 ? 1 : 0;
  const tiles: number[][] = [];
  for (let i = 0; i < batches; i++)
    for (const [m0, m1, n0, n1] of plan.tiles as (readonly [number, number, number, number])[]) {
      const row = i * rows + m0;
      tiles.push([
        byteOffset(a) + row * K,
        byteOffset(b),
        byteOffset(y) + row * N * ySize,
        m1 - m0,
        K,
        N,
        NP,
        n0,
        n1,
        az ? byteOffset(az) + m0 * azStride : -1,
        azStride,
        flags,
        requantize?.lo ?? 0,
        requantize?.hi ?? 0,
        requantize?.zp ?? 0,
        requantize?.scale ?? 0,
      ]);
    }
  runTiles(memory, ctx.parallel, panelsMatMulTile, tiles);
  return true;
}

function intKernel(opType: string, domain: string | undefined, reference: KernelV1, requantized: boolean): KernelV1 {
  return defineKernel({
    opType,
    ...(domain ? { domain } : {}),
    name: 'wasm-simd',
    dtypes: ['uint8', 'int8'],
    parallel: true,
    plan: planIntConvNode,
    compute: (ctx) => {
      if (!convolve(ctx, requantized)) reference.compute(ctx);
    },
  });
}

/** ConvInteger, tsge::RequantizedConv, MatMulInteger, QLinearMatMul and tsge::PackedMatMulInteger; `reference` finds the reference kernel of an op. */
export function simdIntConvKernels(reference: (opType: string) => KernelV1): KernelV1[] {
  return [
    intKernel('ConvInteger', undefined, reference('ConvInteger'), false),
    intKernel(REQUANTIZED_CONV, TSGE_DOMAIN, reference(REQUANTIZED_CONV), true),
    defineKernel({
      opType: 'MatMulInteger',
      name: 'wasm-simd',
      dtypes: ['uint8', 'int8'],
      parallel: true,
      compute: (ctx) => {
        if (!matmulInteger(ctx)) reference('MatMulInteger').compute(ctx);
      },
    }),
    defineKernel({
      opType: 'QLinearMatMul',
      name: 'wasm-simd',
      dtypes: ['uint8', 'int8'],
      parallel: true,
      compute: (ctx) => {
        if (!qlinearMatMul(ctx)) reference('QLinearMatMul').compute(ctx);
      },
    }),
    defineKernel({
      opType: PACKED_MATMUL_INTEGER,
      domain: TSGE_DOMAIN,
      name: 'wasm-simd',
      dtypes: ['uint8', 'int8'],
      parallel: true,
      plan: planIntMatMulNode,
      compute: (ctx) => {
        if (!packedIntMatMul(ctx)) reference(PACKED_MATMUL_INTEGER).compute(ctx);
      },
    }),
  ];
}
