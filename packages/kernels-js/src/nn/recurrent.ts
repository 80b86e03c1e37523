/**
 * RNN, GRU and LSTM (opset 22 semantics): directions, per-direction activations with
 * alpha/beta, clip, layout 0/1, initial states, peepholes, input_forget, linear_before_reset and
 * sequence_lens. State math runs in float64; one batch row is advanced at a time.
 */
import type { KernelContextV1, KernelV1 } from '@tsge/metadef';
import { floatOutput, hasInput, readFloats } from '../common/nn-float-io.js';
import { kernelError, requireTensor } from '../common/kernel-inputs.js';
import { defineKernel } from '../define.js';

type CellKind = 'RNN' | 'GRU' | 'LSTM';
type Activation = (v: number) => number;

const GATES: Readonly<Record<CellKind, number>> = { RNN: 1, GRU: 3, LSTM: 4 };
const DEFAULT_ACTIVATIONS: Readonly<Record<CellKind, readonly string[]>> = {
  RNN: ['Tanh'],
  GRU: ['Sigmoid', 'Tanh'],
  LSTM: ['Sigmoid', 'Tanh', 'Tanh'],
};

/** Builds activation functions, consuming alpha/beta in order for those that take them. */
function buildActivations(ctx: KernelContextV1, kind: CellKind, directions: number): Activation[] {
  const perDirection = DEFAULT_ACTIVATIONS[kind];
  const names = ctx.attrs.strings('activations', []);
  const list = names.length > 0 ? names : Array.from({ length: directions }, () => perDirection).flat();
  if (list.length < perDirection.length * directions)
    throw kernelError(ctx, `expected ${perDirection.length * directions} activations, got ${list.length}`);
  const alphas = ctx.attrs.floats('activation_alpha', []);
  const betas = ctx.attrs.floats('activation_beta', []);
  let ai = 0;
  let bi = 0;
  const take = (list: readonly number[], i: number, fallback: number) => (i < list.length ? (list[i] as number) : fallback);
  return list.map((raw) => {
    const name = raw.toLowerCase();
    switch (name) {
      case 'sigmoid':
        return (v) => 1 / (1 + Math.exp(-v));
      case 'tanh':
        return Math.tanh;
      case 'relu':
        return (v) => Math.max(v, 0);
      case 'softsign':
        return (v) => v / (1 + Math.abs(v));
      case 'softplus':
        return (v) => Math.log1p(Math.exp(v));
      case 'leakyrelu': {
        const a = take(alphas, ai++, 0.01);
        return (v) => (v >= 0 ? v : a * v);
      }
      case 'thresholdedrelu': {
        const a = take(alphas, ai++, 1);
        return (v) => (v > a ? v : 0);
      }
      case 'elu': {
        const a = take(alphas, ai++, 1);
        return (v) => (v >= 0 ? v : a * Math.expm1(v));
      }
      case 'hardsigmoid': {
        const a = take(alphas, ai++, 0.2);
        const b = take(betas, bi++, 0.5);
        return (v) => Math.max(0, Math.min(1, a * v + b));
      }
      case 'scaledtanh': {
        const a = take(alphas, ai++, 1);
        const b = take(betas, bi++, 1);
        return (v) => a * Math.tanh(b * v);
      }
      case 'affine': {
        const a = take(alphas, ai++, 1);
        const b = take(betas, bi++, 0);
        return (v) => a * v + b;
      }
      default:
        throw kernelError(ctx, `unsupported activation ${raw}`);
    }
  });
}

function runRecurrent(ctx: KernelContextV1, kind: CellKind): void {
  const xT = requireTensor(ctx, 0);
  const wT = requireTensor(ctx, 1);
  const rT = requireTensor(ctx, 2);
  if (xT.dims.length !== 3 || wT.dims.length !== 3 || rT.dims.length !== 3) throw kernelError(ctx, 'X, W and R must be 3-D');
  const layout = ctx.attrs.int('layout', 0);
  const seq = (layout === 0 ? xT.dims[0] : xT.dims[1]) as number;
  const batch = (layout === 0 ? xT.dims[1] : xT.dims[0]) as number;
  const inputSize = xT.dims[2] as number;
  const direction = ctx.attrs.string('direction', 'forward');
  const directions = direction === 'bidirectional' ? 2 : 1;
  const gates = GATES[kind];
  const hidden = ctx.attrs.int('hidden_size', (rT.dims[2] as number) ?? 0);
  if (wT.dims[0] !== directions || wT.dims[1] !== gates * hidden || wT.dims[2] !== inputSize)
    throw kernelError(ctx, `W must be [${directions}, ${gates * hidden}, ${inputSize}], got [${wT.dims}]`);
  if (rT.dims[0] !== directions || rT.dims[1] !== gates * hidden || rT.dims[2] !== hidden)
    throw kernelError(ctx, `R must be [${directions}, ${gates * hidden}, ${hidden}], got [${rT.dims}]`);
  const x = readFloats(xT);
  const w = readFloats(wT);
  const r = readFloats(rT);
  const b = hasInput(ctx, 3) ? readFloats(requireTensor(ctx, 3)) : undefined;
  const seqLens = hasInput(ctx, 4) ? readFloats(requireTensor(ctx, 4)) : undefined;
  const initH = hasInput(ctx, 5) ? readFloats(requireTensor(ctx, 5)) : undefined;
  const initC = kind === 'LSTM' && hasInput(ctx, 6) ? readFloats(requireTensor(ctx, 6)) : undefined;
  const peep = kind === 'LSTM' && hasInput(ctx, 7) ? readFloats(requireTensor(ctx, 7)) : undefined;
  const clip = ctx.attrs.has('clip') ? ctx.attrs.float('clip') : Number.POSITIVE_INFINITY;
  const linearBeforeReset = kind === 'GRU' && ctx.attrs.int('linear_before_reset', 0) !== 0;
  const inputForget = kind === 'LSTM' && ctx.attrs.int('input_forget', 0) !== 0;
  const activations = buildActivations(ctx, kind, directions);
  const perDir = DEFAULT_ACTIVATIONS[kind].length;

  const yDims = layout === 0 ? [seq, directions, batch, hidden] : [batch, seq, directions, hidden];
  const stateDims = layout === 0 ? [directions, batch, hidden] : [batch, directions, hidden];
  const y = new Float64Array(seq * directions * batch * hidden);
  const yh = new Float64Array(directions * batch * hidden);
  const yc = new Float64Array(directions * batch * hidden);
  const stateIndex = (d: number, bb: number) => (layout === 0 ? (d * batch + bb) * hidden : (bb * directions + d) * hidden);
  const xIndex = (t: number, bb: number) => (layout === 0 ? (t * batch + bb) * inputSize : (bb * seq + t) * inputSize);
  const yIndex = (t: number, d: number, bb: number) =>
    layout === 0 ? ((t * directions + d) * batch + bb) * hidden : ((bb * seq + t) * directions + d) * hidden;

  const gx = new Float64Array(gates * hidden);
  const gh = new Float64Array(gates * hidden);
  const h = new Float64Array(hidden);
  const c = new Float64Array(hidden);
  const hNext = new Float64Array(hidden);
  const zGate = new Float64Array(hidden);
  const rGate = new Float64Array(hidden);
  const clamp = (v: number) => (v > clip ? clip : Math.max(v, -clip));
  for (let d = 0; d < directions; d++) {
    const reverse = direction === 'reverse' || d === 1;
    const f = activations[d * perDir] as Activation;
    const g = (activations[d * perDir + 1] ?? f) as Activation;
    const hAct = (activations[d * perDir + 2] ?? g) as Activation;
    const wBase = d * gates * hidden * inputSize;
    const rBase = d * gates * hidden * hidden;
    const bBase = d * 2 * gates * hidden;
    for (let bb = 0; bb < batch; bb++) {
      const len = seqLens ? Math.min(seq, Math.max(0, seqLens[bb] as number)) : seq;
      const si = stateIndex(d, bb);
      for (let k = 0; k < hidden; k++) {
        h[k] = initH ? (initH[si + k] as number) : 0;
        c[k] = initC ? (initC[si + k] as number) : 0;
      }
      for (let step = 0; step < len; step++) {
        const t = reverse ? len - 1 - step : step;
        const xo = xIndex(t, bb);
        // gate pre-activations from the input and from the previous hidden state, with biases
        for (let row = 0; row < gates * hidden; row++) {
          let sx = b ? (b[bBase + row] as number) : 0;
          const wo = wBase + row * inputSize;
          for (let i = 0; i < inputSize; i++) sx += (x[xo + i] as number) * (w[wo + i] as number);
          let sh = b ? (b[bBase + gates * hidden + row] as number) : 0;
          const ro = rBase + row * hidden;
          for (let i = 0; i < hidden; i++) sh += (h[i] as number) * (r[ro + i] as number);
          gx[row] = sx;
          gh[row] = sh;
        }
        if (kind === 'RNN') {
          for (let k = 0; k < hidden; k++) hNext[k] = f(clamp((gx[k] as number) + (gh[k] as number)));
        } else if (kind === 'GRU') {
          for (let k = 0; k < hidden; k++) {
            zGate[k] = f(clamp((gx[k] as number) + (gh[k] as number)));
            rGate[k] = f(clamp((gx[hidden + k] as number) + (gh[hidden + k] as number)));
          }
          for (let k = 0; k < hidden; k++) {
            let pre: number;
            if (linearBeforeReset) pre = (gx[2 * hidden + k] as number) + (rGate[k] as number) * (gh[2 * hidden + k] as number);
            else {
              // (r ⊙ H) · Rh^T: the reset applies before the product
              let sum = b ? (b[bBase + gates * hidden + 2 * hidden + k] as number) : 0;
              const ro = rBase + (2 * hidden + k) * hidden;
              for (let i = 0; i < hidden; i++) sum += (rGate[i] as number) * (h[i] as number) * (r[ro + i] as number);
              pre = (gx[2 * hidden + k] as number) + sum;
            }
            const z = zGate[k] as number;
            hNext[k] = (1 - z) * g(clamp(pre)) + z * (h[k] as number);
          }
        } else {
          for (let k = 0; k < hidden; k++) {
            const pi = peep ? (peep[d * 3 * hidden + k] as number) : 0;
            const po = peep ? (peep[d * 3 * hidden + hidden + k] as number) : 0;
            const pf = peep ? (peep[d * 3 * hidden + 2 * hidden + k] as number) : 0;
            const cPrev = c[k] as number;
            const ig = f(clamp((gx[k] as number) + (gh[k] as number) + pi * cPrev));
            const fg = inputForget ? 1 - ig : f(clamp((gx[2 * hidden + k] as number) + (gh[2 * hidden + k] as number) + pf * cPrev));
            const cc = g(clamp((gx[3 * hidden + k] as number) + (gh[3 * hidden + k] as number)));
            const cNew = fg * cPrev + ig * cc;
            const og = f(clamp((gx[hidden + k] as number) + (gh[hidden + k] as number) + po * cNew));
            c[k] = cNew;
            hNext[k] = og * hAct(cNew);
          }
        }
        h.set(hNext);
        y.set(h, yIndex(t, d, bb));
      }
      yh.set(h, si);
      yc.set(c, si);
    }
  }
  const write = (index: number, dims: number[], values: Float64Array) => {
    if (index >= ctx.outputCount) return;
    const out = floatOutput(ctx, index, dims, xT.type);
    out.data.set(values);
    out.commit();
  };
  write(0, yDims, y);
  write(1, stateDims, yh);
  if (kind === 'LSTM') write(2, stateDims, yc);
}

export const recurrentKernels: readonly KernelV1[] = [
  defineKernel({ opType: 'RNN', compute: (ctx) => runRecurrent(ctx, 'RNN') }),
  defineKernel({ opType: 'GRU', compute: (ctx) => runRecurrent(ctx, 'GRU') }),
  defineKernel({ opType: 'LSTM', compute: (ctx) => runRecurrent(ctx, 'LSTM') }),
];
