/** Signal ops: DFT, STFT, Hann/Hamming/Blackman windows and MelWeightMatrix. */
import { type KernelContextV1, type KernelV1, readNumber } from '@tsge/metadef';
import { fftInPlace, isPowerOfTwo } from '../common/math-fft.js';
import { numberOutput, numbersOf } from '../common/math-values.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';
import { readTargetType } from '@tsge/ops/kernel-support';

/**
 * One DFT (an FFT when n is a power of two) of `n` complex samples read at `re[inOff + t*inStride]` (imaginary parts from `im`, or
 * zero), written as `bins` interleaved (re, im) pairs at `out[outOff + f*outStride]`.
 */
function dftSlice(
  src: ArrayLike<number>,
  input: { readonly offset: number; readonly stride: number; readonly complex: boolean; readonly available: number },
  n: number,
  bins: number,
  inverse: boolean,
  out: Float64Array,
  output: { readonly offset: number; readonly stride: number },
  cosTable: Float64Array,
  sinTable: Float64Array,
): void {
  if (isPowerOfTwo(n)) {
    const re = new Float64Array(n);
    const im = new Float64Array(n);
    for (let t = 0; t < input.available; t++) {
      const p = input.offset + t * input.stride;
      re[t] = src[p]!;
      im[t] = input.complex ? src[p + 1]! : 0;
    }
    fftInPlace(re, im, inverse, cosTable, sinTable);
    for (let f = 0; f < bins; f++) {
      const q = output.offset + f * output.stride;
      out[q] = inverse ? re[f]! / n : re[f]!;
      out[q + 1] = inverse ? im[f]! / n : im[f]!;
    }
    return;
  }
  const sign = inverse ? 1 : -1;
  for (let f = 0; f < bins; f++) {
    let sumRe = 0;
    let sumIm = 0;
    for (let t = 0; t < input.available; t++) {
      const p = input.offset + t * input.stride;
      const xr = src[p]!;
      const xi = input.complex ? src[p + 1]! : 0;
      const index = (f * t) % n;
      const c = cosTable[index]!;
      const s = sign * sinTable[index]!;
      sumRe += xr * c - xi * s;
      sumIm += xr * s + xi * c;
    }
    const q = output.offset + f * output.stride;
    out[q] = inverse ? sumRe / n : sumRe;
    out[q + 1] = inverse ? sumIm / n : sumIm;
  }
}

function twiddles(n: number): [Float64Array, Float64Array] {
  const c = new Float64Array(n);
  const s = new Float64Array(n);
  for (let k = 0; k < n; k++) {
    c[k] = Math.cos((2 * Math.PI * k) / n);
    s[k] = Math.sin((2 * Math.PI * k) / n);
  }
  return [c, s];
}

function dftAxis(ctx: KernelContextV1, rank: number): number {
  const axisTensor = ctx.tensor(2);
  const legacyDefault = ctx.opsetVersion > 0 && ctx.opsetVersion < 20 ? 1 : -2;
  const axis = axisTensor && axisTensor.data.length > 0 ? readNumber(axisTensor, 0) : ctx.attrs.int('axis', legacyDefault);
  const a = axis < 0 ? axis + rank : axis;
  if (a < 0 || a >= rank - 1) throw kernelError(ctx, `axis ${axis} out of range for rank ${rank}`);
  return a;
}

function computeDft(ctx: KernelContextV1): void {
  const x = requireTensor(ctx, 0);
  const rank = x.dims.length;
  if (rank < 2) throw kernelError(ctx, 'input rank must be ≥ 2');
  const lanes = x.dims[rank - 1]!;
  if (lanes !== 1 && lanes !== 2) throw kernelError(ctx, 'the last dim must be 1 (real) or 2 (complex)');
  const axis = dftAxis(ctx, rank);
  const lengthTensor = ctx.tensor(1);
  const size = x.dims[axis]!;
  const inverse = ctx.attrs.int('inverse', 0) !== 0;
  const onesided = ctx.attrs.int('onesided', 0) !== 0;
  // an inverse one-sided DFT takes the half spectrum and returns a real signal (irfft)
  const halfInverse = inverse && onesided;
  const n = lengthTensor && lengthTensor.data.length > 0 ? readNumber(lengthTensor, 0) : halfInverse ? 2 * (size - 1) : size;
  if (!Number.isInteger(n) || n < 1 || n > MAX_ELEMENTS) throw kernelError(ctx, `dft_length ${n} must be a positive integer`);
  const bins = halfInverse ? n : onesided ? Math.floor(n / 2) + 1 : n;
  let inner = 1;
  for (let i = axis + 1; i < rank - 1; i++) inner *= x.dims[i]!;
  let outer = 1;
  for (let i = 0; i < axis; i++) outer *= x.dims[i]!;
  const outLanes = halfInverse ? 1 : 2;
  const outDims = x.dims.map((d, i) => (i === axis ? bins : i === rank - 1 ? outLanes : d));
  const src = numbersOf(x);
  const acc = new Float64Array(outer * bins * inner * 2);
  const [c, s] = twiddles(n);
  const full = halfInverse ? new Float64Array(n * 2) : undefined;
  const available = Math.min(size, n);
  for (let o = 0; o < outer; o++) {
    for (let j = 0; j < inner; j++) {
      const offset = (o * size * inner + j) * lanes;
      const stride = inner * lanes;
      const output = { offset: (o * bins * inner + j) * 2, stride: inner * 2 };
      if (full) {
        // rebuild the Hermitian-symmetric full spectrum: X[n-k] = conj(X[k])
        for (let k = 0; k < n; k++) {
          const mirrored = k < size ? k : n - k;
          const p = offset + mirrored * stride;
          const inRange = mirrored >= 0 && mirrored < size;
          full[2 * k] = inRange ? src[p]! : 0;
          const im = inRange && lanes === 2 ? src[p + 1]! : 0;
          full[2 * k + 1] = k < size ? im : -im;
        }
        dftSlice(full, { offset: 0, stride: 2, complex: true, available: n }, n, bins, true, acc, output, c, s);
      } else {
        dftSlice(src, { offset, stride, complex: lanes === 2, available }, n, bins, inverse, acc, output, c, s);
      }
    }
  }
  const out = numberOutput(ctx, 0, outDims, x.type);
  if (halfInverse) for (let i = 0; i < out.values.length; i++) out.values[i] = acc[2 * i]!;
  else out.values.set(acc);
  out.commit();
}

function computeStft(ctx: KernelContextV1): void {
  const x = requireTensor(ctx, 0);
  if (x.dims.length !== 3) throw kernelError(ctx, 'signal must be [batch, length, 1 or 2]');
  const [batch, length, lanes] = x.dims as [number, number, number];
  const step = readNumber(requireTensor(ctx, 1), 0);
  const window = ctx.tensor(2);
  const lengthTensor = ctx.tensor(3);
  const frameLength = lengthTensor && lengthTensor.data.length > 0 ? readNumber(lengthTensor, 0) : window ? window.dims[0]! : 0;
  if (!(frameLength > 0) || !(step > 0)) throw kernelError(ctx, 'frame_length and frame_step must be positive');
  if (window && window.dims[0] !== frameLength) throw kernelError(ctx, 'window length differs from frame_length');
  const onesided = ctx.attrs.int('onesided', 1) !== 0;
  const bins = onesided ? Math.floor(frameLength / 2) + 1 : frameLength;
  const frames = length < frameLength ? 0 : Math.floor((length - frameLength) / step) + 1;
  const src = numbersOf(x);
  const w = window ? numbersOf(window) : undefined;
  const frame = new Float64Array(frameLength * 2);
  const acc = new Float64Array(batch * frames * bins * 2);
  const [c, s] = twiddles(frameLength);
  for (let b = 0; b < batch; b++) {
    for (let f = 0; f < frames; f++) {
      for (let t = 0; t < frameLength; t++) {
        const p = (b * length + f * step + t) * lanes;
        const weight = w ? w[t]! : 1;
        frame[2 * t] = src[p]! * weight;
        frame[2 * t + 1] = lanes === 2 ? src[p + 1]! * weight : 0;
      }
      dftSlice(
        frame,
        { offset: 0, stride: 2, complex: true, available: frameLength },
        frameLength,
        bins,
        false,
        acc,
        { offset: (b * frames + f) * bins * 2, stride: 2 },
        c,
        s,
      );
    }
  }
  const out = numberOutput(ctx, 0, [batch, frames, bins, 2], x.type);
  out.values.set(acc);
  out.commit();
}

/** Largest output the generator ops here will allocate (elements). */
const MAX_ELEMENTS = 2 ** 28;

type WindowKind = 'hann' | 'hamming' | 'blackman';

function windowValue(kind: WindowKind, k: number, n: number): number {
  const x = (2 * Math.PI * k) / n;
  if (kind === 'hann') return 0.5 - 0.5 * Math.cos(x);
  if (kind === 'hamming') return 25 / 46 - (21 / 46) * Math.cos(x);
  return 0.42 - 0.5 * Math.cos(x) + 0.08 * Math.cos(2 * x);
}

function computeMel(ctx: KernelContextV1): void {
  const [bins, dftLength, sampleRate] = [0, 1, 2].map((i) => readNumber(requireTensor(ctx, i), 0)) as [number, number, number];
  const lower = Math.fround(readNumber(requireTensor(ctx, 3), 0));
  const upper = Math.fround(readNumber(requireTensor(ctx, 4), 0));
  if (!(bins > 0) || !(dftLength > 0) || !(sampleRate > 0))
    throw kernelError(ctx, 'num_mel_bins, dft_length and sample_rate must be positive');
  const spectrogramBins = Math.floor(dftLength / 2) + 1;
  if (spectrogramBins * bins > MAX_ELEMENTS) throw kernelError(ctx, `a ${spectrogramBins}×${bins} matrix is too large`);
  const lowMel = 2595 * Math.log10(1 + lower / 700);
  const highMel = 2595 * Math.log10(1 + upper / 700);
  const melStep = (highMel - lowMel) / (bins + 2);
  const points = new Int32Array(bins + 2);
  for (let i = 0; i < bins + 2; i++) {
    const hz = 700 * (10 ** ((i * melStep + lowMel) / 2595) - 1);
    points[i] = Math.floor(((dftLength + 1) * hz) / sampleRate);
  }
  const out = numberOutput(ctx, 0, [spectrogramBins, bins], readTargetType(ctx.attrs, 'output_datatype') ?? 'float32');
  const w = out.values;
  w.fill(0);
  const set = (row: number, col: number, v: number): void => {
    if (row >= 0 && row < spectrogramBins) w[row * bins + col] = v;
  };
  for (let i = 0; i < bins; i++) {
    const left = points[i]!;
    const center = points[i + 1]!;
    const right = points[i + 2]!;
    if (center === left) set(center, i, 1);
    else for (let j = left; j <= center; j++) set(j, i, (j - left) / (center - left));
    if (right > center) for (let j = center; j < right; j++) set(j, i, (right - j) / (right - center));
  }
  out.commit();
}

export const signalKernels: readonly KernelV1[] = [
  defineKernel({ opType: 'DFT', compute: computeDft }),
  defineKernel({ opType: 'STFT', compute: computeStft }),
  ...(
    [
      ['HannWindow', 'hann'],
      ['HammingWindow', 'hamming'],
      ['BlackmanWindow', 'blackman'],
    ] as const
  ).map(([opType, kind]) =>
    defineKernel({
      opType,
      compute: (ctx) => {
        const size = readNumber(requireTensor(ctx, 0), 0);
        if (!Number.isInteger(size) || size < 0 || size > MAX_ELEMENTS) throw kernelError(ctx, `size ${size} is invalid`);
        const periodic = ctx.attrs.int('periodic', 1) !== 0;
        const n = periodic ? size : size - 1;
        const out = numberOutput(ctx, 0, [size], readTargetType(ctx.attrs, 'output_datatype') ?? 'float32');
        for (let k = 0; k < size; k++) out.values[k] = n === 0 ? 1 : windowValue(kind, k, n);
        out.commit();
      },
    }),
  ),
  defineKernel({ opType: 'MelWeightMatrix', compute: computeMel }),
];
