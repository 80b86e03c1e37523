import type { KernelContextV1, KernelV1 } from '@tsge/metadef';
import { defineKernel } from '@tsge/kernels-js/kernel-support';
import { simdKernels } from './kernel-modules.js';
import { scratchMemory } from './scratch-memory.js';
import { convTransposeTile, convTransposeFits, convTransposeTiles } from './conv-transpose-tiles.js';
import { inMemory, simdGemm } from './simd-matmul.js';
import { threadWorkspace } from './thread-workspace.js';
import { runTiles, type NumberTuple } from './tiles.js';

const align64 = (bytes: number): number => (bytes + 63) & ~63;

interface Geometry {
  readonly H: number;
  readonly W: number;
  readonly OH: number;
  readonly OW: number;
  readonly KH: number;
  readonly KW: number;
  readonly sh: number;
  readonly sw: number;
  readonly dh: number;
  readonly dw: number;
  readonly pt: number;
  readonly pl: number;
}

/** 2-D geometry from explicit pads (auto_pad NOTSET or VALID, no output_shape); undefined otherwise. */
function geometryOf(ctx: KernelContextV1, H: number, W: number, kernel: readonly number[]): Geometry | undefined {
  const autoPad = ctx.attrs.string('auto_pad', 'NOTSET');
  if ((autoPad !== 'NOTSET' && autoPad !== 'VALID') || ctx.attrs.has('output_shape')) return undefined;
  const strides = ctx.attrs.ints('strides', [1, 1]);
  const dilations = ctx.attrs.ints('dilations', [1, 1]);
  const pads = autoPad === 'VALID' ? [0, 0, 0, 0] : ctx.attrs.ints('pads', [0, 0, 0, 0]);
  const outputPadding = ctx.attrs.ints('output_padding', [0, 0]);
  const values = [...strides, ...dilations, ...outputPadding, ...pads];
  if (values.length !== 10 || values.some((v) => !Number.isInteger(v) || v < 0)) return undefined;
  const [sh, sw, dh, dw, oph, opw, pt, pl, pb, pr] = values as NumberTuple<10>;
  const [KH, KW] = kernel as [number, number];
  if (!(sh >= 1 && sw >= 1 && dh >= 1 && dw >= 1 && KH >= 1 && KW >= 1)) return undefined;
  const OH = sh * (H - 1) + oph + (KH - 1) * dh + 1 - pt - pb;
  const OW = sw * (W - 1) + opw + (KW - 1) * dw + 1 - pl - pr;
  if (OH <= 0 || OW <= 0) return undefined;
  return { H, W, OH, OW, KH, KW, sh, sw, dh, dw, pt, pl };
}

/**
 * ConvTranspose 2-D on float32 in device memory: per image and group, col = Wᵀ·X by the SIMD
 * GEMM in a private scratch memory, then col2im adds each column row into the output (which starts
 * as the bias). Other ranks, auto_pad SAME, output_shape and dtypes go to the reference kernel.
 */
export function simdConvTransposeKernel(reference: KernelV1): KernelV1 {
  return defineKernel({
    opType: 'ConvTranspose',
    name: 'wasm-simd',
    dtypes: ['float32'],
    // the non-overlapping case splits into tiles through ctx.parallel
    parallel: true,
    compute: (ctx: KernelContextV1) => {
      const memory = ctx.memory;
      const x = ctx.tensor(0);
      const w = ctx.tensor(1);
      const b = ctx.tensor(2);
      if (!memory || x?.type !== 'float32' || x.dims.length !== 4 || !inMemory(memory, x)) return reference.compute(ctx);
      if (!(w?.data instanceof Float32Array) || w.dims.length !== 4 || (b && !(b.data instanceof Float32Array)))
        return reference.compute(ctx);
      const [batch, channels, H, W] = x.dims as [number, number, number, number];
      const group = ctx.attrs.int('group', 1);
      if (group < 1 || channels % group !== 0 || w.dims[0] !== channels) return reference.compute(ctx);
      const mg = w.dims[1] as number;
      const cg = channels / group;
      const outChannels = mg * group;
      const kernel = ctx.attrs.ints('kernel_shape', w.dims.slice(2));
      if (kernel.length !== 2 || kernel[0] !== w.dims[2] || kernel[1] !== w.dims[3]) return reference.compute(ctx);
      const g = geometryOf(ctx, H, W, kernel);
      if (!g || (b && b.data.length !== outChannels) || batch * channels * H * W * mg === 0) return reference.compute(ctx);
      const kSize = g.KH * g.KW;
      const rows = mg * kSize;
      // stride = kernel without pads or dilation: every output is written by exactly one tap
      const tiles =
        g.sh === g.KH && g.sw === g.KW && g.dh === 1 && g.dw === 1 && g.pt === 0 && g.pl === 0 && g.OH === H * g.sh && g.OW === W * g.sw;
      const workspace = threadWorkspace(memory);
      if (tiles && workspace && convTransposeFits(rows, cg, W, workspace.bytes) && inMemory(memory, w) && (!b || inMemory(memory, b))) {
        const y = ctx.output(0, [batch, outChannels, g.OH, g.OW], 'float32');
        if (inMemory(memory, y)) {
          const head = [
            (x.data as Float32Array).byteOffset,
            (w.data as Float32Array).byteOffset,
            (y.data as Float32Array).byteOffset,
            b ? (b.data as Float32Array).byteOffset : -1,
            channels,
            outChannels,
            group,
            H,
            W,
            g.KH,
            g.KW,
          ];
          const parts = convTransposeTiles(group, batch, H, W * rows * cg, ctx.parallel?.threads ?? 1);
          runTiles(
            memory,
            ctx.parallel,
            convTransposeTile,
            parts.map((t) => [...head, ...t]),
          );
          return;
        }
      }
      const inSize = H * W;
      const wBytes = align64(rows * cg * 4);
      const xBytes = align64(cg * inSize * 4);
      const colBytes = align64(rows * inSize * 4);
      const scratch = scratchMemory(64 + wBytes + xBytes + colBytes);
      if (!scratch || !simdKernels(scratch)) return reference.compute(ctx);
      const y = ctx.output(0, [batch, outChannels, g.OH, g.OW], 'float32');
      if (!inMemory(memory, y)) return reference.compute(ctx);
      const X = x.data as Float32Array;
      const Wt = w.data as Float32Array;
      const Y = y.data as Float32Array;
      const bias = b?.data as Float32Array | undefined;
      const wView = new Float32Array(scratch.buffer, 64, rows * cg);
      const xView = new Float32Array(scratch.buffer, 64 + wBytes, cg * inSize);
      const col = new Float32Array(scratch.buffer, 64 + wBytes + xBytes, rows * inSize);
      const outSize = g.OH * g.OW;
      for (let grp = 0; grp < group; grp++) {
        // Wᵀ of the group: [mg·KH·KW × cg]
        for (let c = 0; c < cg; c++) {
          const from = (grp * cg + c) * rows;
          for (let r = 0; r < rows; r++) wView[r * cg + c] = Wt[from + r] as number;
        }
        for (let n = 0; n < batch; n++) {
          const xBase = (n * channels + grp * cg) * inSize;
          xView.set(X.subarray(xBase, xBase + cg * inSize));
          simdGemm(
            scratch,
            { m: rows, n: inSize, k: cg },
            { data: wView, offset: 0, ld: cg },
            { data: xView, offset: 0, ld: inSize },
            { data: col, offset: 0, ld: inSize },
          );
          for (let m = 0; m < mg; m++) {
            const oc = grp * mg + m;
            const yBase = (n * outChannels + oc) * outSize;
            if (tiles) {
              tileChannel(Y, yBase, col, m * kSize * inSize, g, bias ? (bias[oc] as number) : 0);
            } else {
              Y.fill(bias ? (bias[oc] as number) : 0, yBase, yBase + outSize);
              col2imChannel(Y, yBase, col, m * kSize * inSize, g);
            }
          }
        }
      }
    },
  });
}

/** Adds the KH·KW column rows of one output channel (starting at `colBase`) into its plane. */
function col2imChannel(Y: Float32Array, yBase: number, col: Float32Array, colBase: number, g: Geometry): void {
  const { H, W, OH, OW, KH, KW, sh, sw, dh, dw, pt, pl } = g;
  let row = colBase;
  for (let kh = 0; kh < KH; kh++) {
    for (let kw = 0; kw < KW; kw++, row += H * W) {
      const offsetW = kw * dw - pl;
      // input columns whose output column lies inside [0, OW)
      const wLo = Math.max(0, Math.ceil(-offsetW / sw));
      const wHi = Math.min(W, Math.floor((OW - 1 - offsetW) / sw) + 1);
      for (let h = 0; h < H; h++) {
        const oh = h * sh + kh * dh - pt;
        if (oh < 0 || oh >= OH) continue;
        const src = row + h * W;
        let o = yBase + oh * OW + wLo * sw + offsetW;
        for (let iw = wLo; iw < wHi; iw++, o += sw) Y[o] = (Y[o] as number) + (col[src + iw] as number);
      }
    }
  }
}

/** The non-overlapping case: each column row lands on a strided grid of the plane, plus the bias. */
function tileChannel(Y: Float32Array, yBase: number, col: Float32Array, colBase: number, g: Geometry, bias: number): void {
  const { H, W, OW, KH, KW } = g;
  let row = colBase;
  for (let kh = 0; kh < KH; kh++) {
    for (let kw = 0; kw < KW; kw++, row += H * W) {
      for (let h = 0; h < H; h++) {
        const src = row + h * W;
        let o = yBase + (h * KH + kh) * OW + kw;
        for (let iw = 0; iw < W; iw++, o += KW) Y[o] = (col[src + iw] as number) + bias;
      }
    }
  }
}
