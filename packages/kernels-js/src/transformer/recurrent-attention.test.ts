import { attr, createTensor, type HostTensor, type RuntimeValue } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { runKernelOnHost } from '../host/run-on-host.js';
import { expectClose, f32, runOp, values } from '../nn/test-support.fixture.js';
import { causalConvKernels } from './causal-conv-with-state.js';
import { flexAttentionKernels } from './flex-attention.js';
import { linearAttentionKernels } from './linear-attention.js';

describe('LinearAttention', () => {
  it('accumulates k⊗v with the linear rule and returns the state', () => {
    const q = f32([1, 2, 1], [1, 1]);
    const k = f32([1, 2, 1], [1, 2]);
    const v = f32([1, 2, 1], [3, 5]);
    const [y, state] = runOp(
      linearAttentionKernels,
      'LinearAttention',
      [q, k, v],
      { q_num_heads: attr.int(1), kv_num_heads: attr.int(1), update_rule: attr.string('linear') },
      2,
    );
    expectClose(values(y), [3, 13]);
    expect(state?.dims).toEqual([1, 1, 1, 1]);
    expectClose(values(state), [13]);
  });
  it('applies decay and the delta correction', () => {
    const q = f32([1, 1, 1], [1]);
    const k = f32([1, 1, 1], [1]);
    const v = f32([1, 1, 1], [4]);
    const past = f32([1, 1, 1, 1], [2]);
    const decay = f32([1, 1, 1], [Math.log(0.5)]);
    const beta = f32([1, 1, 1], [0.5]);
    const [y] = runOp(
      linearAttentionKernels,
      'LinearAttention',
      [q, k, v, past, decay, beta],
      { q_num_heads: attr.int(1), kv_num_heads: attr.int(1), scale: attr.float(1) },
      2,
    );
    // S = 0.5*2 = 1; S += 0.5 * 1 * (4 - 1) = 2.5
    expectClose(values(y), [2.5]);
  });
});

describe('FlexAttention', () => {
  it('runs score_mod on the score tensor', () => {
    const q = f32([1, 1, 1, 1], [1]);
    const k = f32([1, 1, 2, 1], [1, 1]);
    const v = f32([1, 1, 2, 1], [10, 20]);
    const kernel = flexAttentionKernels[0];
    if (!kernel) throw new Error('missing kernel');
    // score_mod masks the second key
    const runSubgraph = (_name: string, inputs: readonly (RuntimeValue | undefined)[]): RuntimeValue[] => {
      const s = inputs[0] as HostTensor;
      const data = Float32Array.from(s.data as Float32Array);
      data[1] = Number.NEGATIVE_INFINITY;
      return [createTensor('float32', s.dims, data)];
    };
    const [y] = runKernelOnHost(kernel, [q, k, v], { outputCount: 1, attrs: new Map([['score_mod', attr.graph('g')]]), runSubgraph });
    expectClose(values(y as HostTensor), [10]);
    const [plain] = runKernelOnHost(kernel, [q, k, v], { outputCount: 1 });
    expectClose(values(plain as HostTensor), [15]);
  });
});

describe('CausalConvWithState', () => {
  it('convolves causally with the past state and returns the new state', () => {
    const x = f32([1, 1, 2], [3, 4]);
    const w = f32([1, 1, 2], [1, 10]);
    const past = f32([1, 1, 1], [2]);
    const [y, state] = runOp(causalConvKernels, 'CausalConvWithState', [x, w, undefined, past], {}, 2);
    expect(values(y)).toEqual([32, 43]);
    expect(values(state)).toEqual([4]);
  });
});
