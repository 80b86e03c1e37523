import { attr } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { recurrentKernels } from './recurrent.js';
import { expectClose, f32, runOp, values } from './test-support.fixture.js';

const sigmoid = (v: number) => 1 / (1 + Math.exp(-v));

describe('recurrent', () => {
  it('runs a forward RNN with bias and initial state', () => {
    const x = f32([2, 1, 1], [1, 2]);
    const w = f32([1, 1, 1], [0.5]);
    const r = f32([1, 1, 1], [0.25]);
    const b = f32([1, 2], [0.1, 0]);
    const [y, yh] = runOp(recurrentKernels, 'RNN', [x, w, r, b, undefined, f32([1, 1, 1], [1])], { hidden_size: attr.int(1) }, 2);
    const h1 = Math.tanh(0.5 + 0.25 + 0.1);
    const h2 = Math.tanh(1 + 0.25 * h1 + 0.1);
    expectClose(values(y), [h1, h2]);
    expectClose(values(yh), [h2]);
  });
  it('runs a bidirectional GRU and honours sequence_lens', () => {
    const x = f32([2, 1, 1], [1, 2]);
    const w = f32([2, 3, 1], [1, 1, 1, 1, 1, 1]);
    const r = f32([2, 3, 1], [0, 0, 0, 0, 0, 0]);
    const [y, yh] = runOp(recurrentKernels, 'GRU', [x, w, r], { hidden_size: attr.int(1), direction: attr.string('bidirectional') }, 2);
    const step = (xv: number, h: number) => {
      const z = sigmoid(xv);
      return (1 - z) * Math.tanh(xv) + z * h;
    };
    const f1 = step(1, 0);
    const f2 = step(2, f1);
    const r2 = step(2, 0);
    const r1 = step(1, r2);
    expect(y?.dims).toEqual([2, 2, 1, 1]);
    expectClose(values(y), [f1, r1, f2, r2]);
    expectClose(values(yh), [f2, r1]);
  });
  it('runs an LSTM with peepholes and layout 1', () => {
    const x = f32([1, 1, 1], [1]);
    const w = f32([1, 4, 1], [1, 1, 1, 1]);
    const r = f32([1, 4, 1], [0, 0, 0, 0]);
    const p = f32([1, 3], [0, 0.5, 0]);
    const [y, yh, yc] = runOp(
      recurrentKernels,
      'LSTM',
      [x, w, r, undefined, undefined, undefined, undefined, p],
      { hidden_size: attr.int(1), layout: attr.int(1) },
      3,
    );
    const i = sigmoid(1);
    const c = i * Math.tanh(1);
    const o = sigmoid(1 + 0.5 * c);
    expectClose(values(yc), [c]);
    expectClose(values(yh), [o * Math.tanh(c)]);
    expect(y?.dims).toEqual([1, 1, 1, 1]);
  });
});
