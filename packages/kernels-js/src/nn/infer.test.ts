import { InferenceError, attr, createTensor } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { transformerOps, nnOps } from '@tsge/ops/kernel-support';
import { f32, inferOp } from './test-support.fixture.js';

const f = (shape: (number | string)[]) => ({ dtype: 'float32' as const, shape });

describe('nn shape inference', () => {
  it('infers Conv with symbolic batch, strides and SAME padding', () => {
    const [y] = inferOp(nnOps, 'Conv', [f(['N', 3, 224, 224]), f([64, 3, 7, 7])], {
      attrs: { strides: attr.ints([2, 2]), pads: attr.ints([3, 3, 3, 3]) },
    });
    expect(y?.shape).toEqual(['N', 64, 112, 112]);
    const [s] = inferOp(nnOps, 'Conv', [f([1, 3, 5, 'W']), f([8, 3, 3, 3])], {
      attrs: { auto_pad: attr.string('SAME_UPPER'), strides: attr.ints([2, 2]) },
    });
    expect(s?.shape).toEqual([1, 8, 3, -1]);
    expect(() => inferOp(nnOps, 'Conv', [f([1, 3]), f([8, 3, 3])])).toThrow(InferenceError);
  });
  it('infers ConvTranspose, pools and global pools', () => {
    expect(
      inferOp(nnOps, 'ConvTranspose', [f([1, 2, 3, 3]), f([2, 4, 3, 3])], { attrs: { strides: attr.ints([2, 2]) } })[0]?.shape,
    ).toEqual([1, 4, 7, 7]);
    const [y, idx] = inferOp(nnOps, 'MaxPool', [f([1, 1, 5, 5])], {
      attrs: { kernel_shape: attr.ints([2, 2]), strides: attr.ints([2, 2]), ceil_mode: attr.int(1) },
      outputCount: 2,
    });
    expect(y?.shape).toEqual([1, 1, 3, 3]);
    expect(idx?.dtype).toBe('int64');
    expect(inferOp(nnOps, 'GlobalAveragePool', [f(['N', 8, 7, 7])])[0]?.shape).toEqual(['N', 8, 1, 1]);
  });
  it('infers Resize from constant scales or sizes, unknown otherwise', () => {
    const scales = f32([4], [1, 1, 2, 0.5]);
    expect(inferOp(nnOps, 'Resize', [f([1, 1, 4, 4]), undefined, f([4])], { values: [undefined, undefined, scales] })[0]?.shape).toEqual([
      1, 1, 8, 2,
    ]);
    const sizes = createTensor('int64', [2], BigInt64Array.from([3n, 5n]));
    expect(
      inferOp(nnOps, 'Resize', [f(['N', 1, 4, 4]), undefined, undefined, { dtype: 'int64', shape: [2] }], {
        attrs: { axes: attr.ints([2, 3]) },
        values: [undefined, undefined, undefined, sizes],
      })[0]?.shape,
    ).toEqual(['N', 1, 3, 5]);
    expect(inferOp(nnOps, 'Resize', [f([1, 1, 4, 4]), undefined, f([4])])[0]?.shape).toEqual([-1, -1, -1, -1]);
  });
  it('infers normalization stash outputs, losses, recurrent outputs and NMS', () => {
    const [, mean] = inferOp(nnOps, 'LayerNormalization', [f(['B', 'S', 8]), f([8])], { attrs: { axis: attr.int(-1) }, outputCount: 3 });
    expect(mean?.shape).toEqual(['B', 'S', 1]);
    expect(
      inferOp(nnOps, 'SoftmaxCrossEntropyLoss', [f([2, 5, 3]), { dtype: 'int64', shape: [2, 3] }], {
        attrs: { reduction: attr.string('none') },
      })[0]?.shape,
    ).toEqual([2, 3]);
    const [y, yh] = inferOp(nnOps, 'LSTM', [f([7, 2, 4]), f([2, 12, 4]), f([2, 12, 3])], {
      attrs: { hidden_size: attr.int(3), direction: attr.string('bidirectional') },
      outputCount: 3,
    });
    expect(y?.shape).toEqual([7, 2, 2, 3]);
    expect(yh?.shape).toEqual([2, 2, 3]);
    const [sel] = inferOp(nnOps, 'NonMaxSuppression', [f([1, 4, 4]), f([1, 1, 4])]);
    expect(sel?.shape[1]).toBe(3);
    expect(typeof sel?.shape[0]).toBe('string');
  });
  it('infers quantization output types', () => {
    expect(inferOp(nnOps, 'QuantizeLinear', [f([3]), f([]), { dtype: 'int8', shape: [] }])[0]?.dtype).toBe('int8');
    expect(inferOp(nnOps, 'QuantizeLinear', [f([3]), f([])])[0]?.dtype).toBe('uint8');
    expect(
      inferOp(nnOps, 'DequantizeLinear', [
        { dtype: 'int8', shape: [3] },
        { dtype: 'float16', shape: [] },
      ])[0]?.dtype,
    ).toBe('float16');
  });
});

describe('transformer shape inference', () => {
  it('infers Attention outputs for 3-D inputs with past state', () => {
    const outputs = inferOp(
      transformerOps,
      'Attention',
      [f([2, 4, 16]), f([2, 4, 8]), f([2, 4, 8]), undefined, f([2, 2, 3, 4]), f([2, 2, 3, 4])],
      {
        attrs: { q_num_heads: attr.int(4), kv_num_heads: attr.int(2) },
        outputCount: 4,
      },
    );
    expect(outputs.map((o) => o?.shape)).toEqual([
      [2, 4, 16],
      [2, 2, 7, 4],
      [2, 2, 7, 4],
      [2, 4, 4, 7],
    ]);
  });
  it('infers LinearAttention and CausalConvWithState', () => {
    const [y, state] = inferOp(transformerOps, 'LinearAttention', [f([2, 4, 64]), f([2, 4, 32]), f([2, 4, 32])], {
      attrs: { q_num_heads: attr.int(8), kv_num_heads: attr.int(4) },
      outputCount: 2,
    });
    expect(y?.shape).toEqual([2, 4, 64]);
    expect(state?.shape).toEqual([2, 4, 8, 8]);
    expect(inferOp(transformerOps, 'CausalConvWithState', [f([1, 6, 10]), f([6, 1, 4])], { outputCount: 2 })[1]?.shape).toEqual([1, 6, 3]);
  });
});
