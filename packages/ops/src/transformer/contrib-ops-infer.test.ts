// Shape inference of onnxruntime's contrib ops: output shapes, and coded errors naming the node for
// inputs the ops cannot take.
import { type AttrMap, type OpDefinitionV1, type ValueInfo, InferenceError, attr } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { inferOnValues } from '../common/tensor-harness.js';
import { nnOps } from '../nn/index.js';
import { transformerOps } from './index.js';

const MS = 'com.microsoft';
const defs = [...transformerOps, ...nnOps];
function def(type: string, domain = MS): OpDefinitionV1 {
  const d = defs.find((x) => x.type === type && x.domain === domain);
  if (!d) throw new Error(`no ${domain}::${type}`);
  return d;
}
const f32 = (...shape: (number | string)[]): ValueInfo => ({ dtype: 'float32', shape });
const typed = (dtype: ValueInfo['dtype'], ...shape: (number | string)[]): ValueInfo => ({ dtype, shape });

function infer(type: string, inputs: (ValueInfo | undefined)[], attrs: AttrMap, outputCount = 1, domain = MS) {
  return inferOnValues(def(type, domain), inputs, { attrs, outputCount }).map((o) => o?.shape);
}

function rejects(type: string, inputs: (ValueInfo | undefined)[], attrs: AttrMap, message: RegExp, domain = MS): void {
  let error: unknown;
  try {
    inferOnValues(def(type, domain), inputs, { attrs, outputCount: 1 });
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(InferenceError);
  expect((error as InferenceError).code).toBe('TSGE-E4001');
  expect((error as Error).message).toMatch(/ node: /);
  expect((error as Error).message).toMatch(message);
}

describe('contrib op inference', () => {
  it('Attention: output and present shapes; bad hidden sizes and unsupported options', () => {
    const attrs = new Map([['num_heads', attr.int(2)]]);
    expect(infer('Attention', [f32(2, 'S', 12), f32(12, 24), f32(24), undefined, f32(2, 2, 2, 5, 4)], attrs, 2)).toEqual([
      [2, 'S', 8],
      [2, 2, 2, -1, 4],
    ]);
    rejects('Attention', [f32(2, 3, 12), f32(12, 25)], attrs, /not divisible by 3/);
    rejects('Attention', [f32(2, 3, 12), f32(12, 24)], new Map([['num_heads', attr.int(3)]]), /multiples of num_heads/);
    rejects('Attention', [f32(2, 3, 12), f32(12, 24)], new Map([...attrs, ['do_rotary', attr.int(1)]]), /do_rotary/);
  });

  it('MultiHeadAttention: layouts and present shapes; bad ranks', () => {
    const attrs = new Map([['num_heads', attr.int(2)]]);
    const bsd = infer(
      'MultiHeadAttention',
      [f32(2, 3, 8), f32(2, 5, 8), f32(2, 5, 12), undefined, undefined, undefined, f32(2, 2, 4, 4), f32(2, 2, 4, 6)],
      attrs,
      3,
    );
    expect(bsd).toEqual([
      [2, 3, 12],
      [2, 2, 9, 4],
      [2, 2, 9, 6],
    ]);
    expect(infer('MultiHeadAttention', [f32(2, 3, 2, 3, 4)], attrs)).toEqual([[2, 3, 8]]);
    expect(infer('MultiHeadAttention', [f32(2, 3, 8), f32(2, 7, 2, 2, 4)], attrs)).toEqual([[2, 3, 8]]);
    rejects('MultiHeadAttention', [f32(2, 3, 8), f32(2, 5)], attrs, /key must be 3-D, 4-D or 5-D/);
    rejects('MultiHeadAttention', [f32(2, 3, 9), f32(2, 5, 9), f32(2, 5, 9)], attrs, /not a multiple of 2 heads/);
  });

  it('MatMulNBits: output shape; B layout, bits, block size and g_idx checked', () => {
    const attrs = new Map([
      ['K', attr.int(40)],
      ['N', attr.int(6)],
      ['block_size', attr.int(16)],
    ]);
    expect(infer('MatMulNBits', [f32('b', 3, 40), typed('uint8', 6, 3, 8), f32(18)], attrs)).toEqual([['b', 3, 6]]);
    rejects('MatMulNBits', [f32(3, 40), typed('uint8', 6, 2, 8), f32(12)], attrs, /B must be \[6,3,8\]/);
    rejects('MatMulNBits', [f32(3, 41), typed('uint8', 6, 3, 8), f32(18)], attrs, /differs from K 40/);
    rejects('MatMulNBits', [f32(3, 40)], new Map([...attrs, ['bits', attr.int(3)]]), /bits must be 2, 4 or 8/);
    rejects('MatMulNBits', [f32(3, 40)], new Map([...attrs, ['block_size', attr.int(24)]]), /power of two/);
    rejects('MatMulNBits', [f32(3, 40), typed('uint8', 6, 3, 8), f32(18), undefined, typed('int32', 40)], attrs, /g_idx/);
  });

  it('GatherBlockQuantized: unpacked output shape; axes checked', () => {
    const attrs = new Map([
      ['block_size', attr.int(16)],
      ['quantize_axis', attr.int(-1)],
    ]);
    expect(infer('GatherBlockQuantized', [typed('uint8', 10, 32), typed('int64', 2, 3), f32(10, 4)], attrs)).toEqual([[2, 3, 64]]);
    rejects(
      'GatherBlockQuantized',
      [typed('uint8', 10, 32), typed('int64', 2), f32(10, 4)],
      new Map([...attrs, ['gather_axis', attr.int(1)]]),
      /gather_axis 0/,
    );
  });

  it('DynamicQuantizeMatMul, EmbedLayerNormalization, BiasSplitGelu, SkipSimplifiedLayerNormalization', () => {
    expect(infer('DynamicQuantizeMatMul', [f32(2, 3, 8), typed('int8', 8, 5), f32(5)], new Map())).toEqual([[2, 3, 5]]);
    rejects('DynamicQuantizeMatMul', [f32(2, 3, 8), typed('int8', 7, 5), f32(5)], new Map(), /differs from B's first dim/);
    const embed = [typed('int32', 2, 5), undefined, f32(30, 16), f32(12, 16), undefined, f32(16), f32(16)];
    expect(infer('EmbedLayerNormalization', embed, new Map(), 2)).toEqual([[2, 5, 16], [2]]);
    rejects('EmbedLayerNormalization', embed.slice(0, 5), new Map(), /gamma and beta are required/);
    expect(infer('BiasSplitGelu', [f32(2, 'S', 64), f32(64)], new Map())).toEqual([[2, 'S', 32]]);
    rejects('BiasSplitGelu', [f32(2, 4, 63), f32(63)], new Map(), /must be even/);
    expect(infer('SkipSimplifiedLayerNormalization', [f32(2, 4, 8), f32(2, 4, 8), f32(8)], new Map(), 4)).toEqual([
      [2, 4, 8],
      [2, 4, 1],
      [2, 4, 1],
      [2, 4, 8],
    ]);
    rejects('SkipSimplifiedLayerNormalization', [f32(8), f32(8), f32(8)], new Map(), /2-D or 3-D/);
    rejects('SkipSimplifiedLayerNormalization', [f32(4, 4, 8), f32(2, 8), f32(8)], new Map(), /does not match input/);
    rejects('SkipSimplifiedLayerNormalization', [f32(4, 4, 8), f32(4, 8), f32(6)], new Map(), /must hold 8 values/);
    expect(infer('SimplifiedLayerNormalization', [f32(2, 3, 8), f32(3, 8)], new Map([['axis', attr.int(1)]]), 2, 'ai.onnx')).toEqual([
      [2, 3, 8],
      [2, 1, 1],
    ]);
    const stashed = inferOnValues(def('SimplifiedLayerNormalization', 'ai.onnx'), [f32(2, 8), f32(8)], {
      attrs: new Map([['stash_type', attr.int(11)]]),
      outputCount: 2,
    });
    expect(stashed[1]?.dtype).toBe('float64');
    rejects('SimplifiedLayerNormalization', [f32(2, 8), f32(8)], new Map([['stash_type', attr.int(10)]]), /stash_type/, 'ai.onnx');
    rejects(
      'MatMulNBits',
      [f32(3, 40), typed('uint8', 6, 3, 8), f32(18), typed('int32', 6, 2)],
      new Map([
        ['K', attr.int(40)],
        ['N', attr.int(6)],
        ['block_size', attr.int(16)],
      ]),
      /int32 zero_points/,
    );
    rejects('RotaryEmbedding', [f32(2, 8)], new Map(), /3-D or 4-D/);
  });
});
