// com.microsoft / onnxruntime normalization-style contrib ops on random inputs against
// onnxruntime-node: SimplifiedLayerNormalization, SkipSimplifiedLayerNormalization,
// EmbedLayerNormalization, BiasSplitGelu and com.microsoft RotaryEmbedding.
import type { HostTensor } from '@tsge/metadef';
import { describe, it } from 'vitest';
import { expectLikeOrt, int32s, int64s, lcg, randomFloats } from './ort-compare.fixture.js';
import { type Attr, type Operand, onnxModel, singleNodeModel } from './single-node-model.fixture.js';

const MS = 'com.microsoft';
const op = (name: string, type: Operand['type'], dims: (number | string)[]): Operand => ({ name, type, dims });

describe('normalization contrib ops vs onnxruntime-node', () => {
  it('SimplifiedLayerNormalization over the last axis and over two axes, with inv_std_var', async () => {
    for (const [axis, dims] of [
      [-1, [2, 3, 16]],
      [1, [2, 3, 8]],
    ] as const) {
      const random = lcg(11 + axis);
      const scaleDims = dims.slice(axis < 0 ? dims.length + axis : axis);
      const bytes = singleNodeModel(
        'SimplifiedLayerNormalization',
        '',
        [op('X', 'float32', [...dims]), op('scale', 'float32', [...scaleDims])],
        [
          op('Y', 'float32', [...dims]),
          op(
            'inv_std_var',
            'float32',
            dims.map((d, i) => (i >= (axis < 0 ? dims.length + axis : axis) ? 1 : d)),
          ),
        ],
        [
          { name: 'axis', int: axis },
          { name: 'epsilon', float: 1e-6 },
        ],
      );
      await expectLikeOrt({
        label: `SimplifiedLayerNormalization axis ${axis}`,
        bytes,
        feeds: { X: randomFloats('float32', [...dims], random), scale: randomFloats('float32', [...scaleDims], random) },
        outputs: ['Y', 'inv_std_var'],
        tolerance: 1e-5,
      });
    }
  }, 60_000);

  it('SkipSimplifiedLayerNormalization with bias, broadcast skip and the sum output (fp32, fp16)', async () => {
    for (const type of ['float32', 'float16'] as const) {
      for (const skipDims of [
        [2, 4, 32],
        [4, 32],
      ]) {
        const random = lcg(skipDims.length * 5 + (type === 'float16' ? 1 : 0));
        const bytes = singleNodeModel(
          'SkipSimplifiedLayerNormalization',
          MS,
          [op('input', type, [2, 4, 32]), op('skip', type, skipDims), op('gamma', type, [32]), op('bias', type, [32])],
          [
            op('output', type, [2, 4, 32]),
            op('mean', 'float32', [2, 4, 1]),
            op('inv_std_var', 'float32', [2, 4, 1]),
            op('sum', type, [2, 4, 32]),
          ],
          [{ name: 'epsilon', float: 1e-5 }],
        );
        await expectLikeOrt({
          label: `SkipSimplifiedLayerNormalization ${type} skip [${skipDims}]`,
          bytes,
          feeds: {
            input: randomFloats(type, [2, 4, 32], random),
            skip: randomFloats(type, skipDims, random),
            gamma: randomFloats(type, [32], random),
            bias: randomFloats(type, [32], random),
          },
          outputs: ['output', 'sum'],
          tolerance: type === 'float16' ? 4e-3 : 1e-5,
        });
      }
    }
  }, 60_000);

  it('EmbedLayerNormalization with segments, mask, position ids and the embedding sum', async () => {
    const random = lcg(7);
    const [batch, seq, hidden, vocab] = [2, 5, 16, 30];
    const feeds: Record<string, HostTensor> = {
      input_ids: int32s(
        [batch, seq],
        Array.from({ length: batch * seq }, () => Math.floor(random() * vocab)),
      ),
      segment_ids: int32s(
        [batch, seq],
        Array.from({ length: batch * seq }, () => Math.floor(random() * 2)),
      ),
      word_embedding: randomFloats('float32', [vocab, hidden], random),
      position_embedding: randomFloats('float32', [12, hidden], random),
      segment_embedding: randomFloats('float32', [2, hidden], random),
      gamma: randomFloats('float32', [hidden], random),
      beta: randomFloats('float32', [hidden], random),
      mask: int32s([batch, seq], [1, 1, 1, 1, 0, 1, 1, 0, 0, 0]),
      position_ids: int32s([batch, seq], [3, 4, 5, 6, 7, 0, 2, 4, 6, 8]),
    };
    const inputs = [
      op('input_ids', 'int32', [batch, seq]),
      op('segment_ids', 'int32', [batch, seq]),
      op('word_embedding', 'float32', [vocab, hidden]),
      op('position_embedding', 'float32', [12, hidden]),
      op('segment_embedding', 'float32', [2, hidden]),
      op('gamma', 'float32', [hidden]),
      op('beta', 'float32', [hidden]),
      op('mask', 'int32', [batch, seq]),
      op('position_ids', 'int32', [batch, seq]),
    ];
    const outputs = [
      op('output', 'float32', [batch, seq, hidden]),
      op('mask_index', 'int32', [batch]),
      op('embedding_sum', 'float32', [batch, seq, hidden]),
    ];
    await expectLikeOrt({
      label: 'EmbedLayerNormalization',
      bytes: singleNodeModel('EmbedLayerNormalization', MS, inputs, outputs, [{ name: 'epsilon', float: 1e-12 }]),
      feeds,
      outputs: ['output', 'mask_index', 'embedding_sum'],
      tolerance: 1e-5,
    });
    // without segments, mask and position ids
    const plain = Object.fromEntries(
      ['input_ids', 'word_embedding', 'position_embedding', 'gamma', 'beta'].map((k) => [k, feeds[k] as HostTensor]),
    );
    await expectLikeOrt({
      label: 'EmbedLayerNormalization, no segments',
      bytes: singleNodeModel(
        'EmbedLayerNormalization',
        MS,
        [inputs[0], undefined, inputs[2], inputs[3], undefined, inputs[5], inputs[6]],
        outputs.slice(0, 2),
        [{ name: 'epsilon', float: 1e-5 }],
      ),
      feeds: plain,
      outputs: ['output', 'mask_index'],
      tolerance: 1e-5,
    });
  }, 60_000);

  // onnxruntime has BiasSplitGelu on CUDA only: its CPU runs the same function as ONNX ops
  it('BiasSplitGelu (fp32, fp16) against Add → Split → Gelu → Mul', async () => {
    for (const type of ['float32', 'float16'] as const) {
      const random = lcg(type === 'float32' ? 3 : 4);
      const inputs = [op('X', type, [2, 6, 64]), op('bias', type, [64])];
      const outputs = [op('Y', type, [2, 6, 32])];
      const reference = onnxModel(
        [
          { opType: 'Add', domain: '', inputs: ['X', 'bias'], outputs: ['sum'] },
          {
            opType: 'Split',
            domain: '',
            inputs: ['sum'],
            outputs: ['left', 'right'],
            attrs: [
              { name: 'axis', int: -1 },
              { name: 'num_outputs', int: 2 },
            ],
          },
          { opType: 'Gelu', domain: '', inputs: ['right'], outputs: ['gate'] },
          { opType: 'Mul', domain: '', inputs: ['left', 'gate'], outputs: ['Y'] },
        ],
        inputs,
        outputs,
      );
      await expectLikeOrt({
        label: `BiasSplitGelu ${type}`,
        reference,
        bytes: singleNodeModel('BiasSplitGelu', MS, inputs, outputs, []),
        feeds: { X: randomFloats(type, [2, 6, 64], random), bias: randomFloats(type, [64], random) },
        outputs: ['Y'],
        tolerance: type === 'float16' ? 4e-3 : 1e-5,
      });
    }
  }, 60_000);

  interface RotaryCase {
    name: string;
    dims: number[];
    numHeads?: number;
    interleaved: boolean;
    positions: 'offset' | 'ids';
    half: number;
    rotaryDim?: number;
    scale?: number;
  }
  const rotaryCases: RotaryCase[] = [
    { name: '3-D, half split, position ids', dims: [2, 3, 32], numHeads: 2, interleaved: false, positions: 'ids', half: 8 },
    { name: '3-D, interleaved, offset', dims: [2, 3, 32], numHeads: 2, interleaved: true, positions: 'offset', half: 8 },
    { name: '4-D BNSH, interleaved, position ids', dims: [1, 2, 4, 16], interleaved: true, positions: 'ids', half: 8 },
    { name: '3-D, partial rotary', dims: [1, 4, 64], numHeads: 2, interleaved: false, positions: 'offset', half: 8, rotaryDim: 16 },
    { name: '3-D without num_heads (head = rotary dim)', dims: [1, 3, 32], interleaved: false, positions: 'ids', half: 8 },
    { name: 'scale 0.5', dims: [1, 3, 32], numHeads: 2, interleaved: false, positions: 'ids', half: 8, scale: 0.5 },
  ];
  for (const c of rotaryCases)
    it(`com.microsoft RotaryEmbedding: ${c.name}`, async () => {
      const random = lcg(c.dims.reduce((a, b) => a + b, 0));
      const maxPos = 12;
      const angle = (p: number, j: number) => p * 10000 ** (-j / c.half);
      const cos = Float32Array.from({ length: maxPos * c.half }, (_, i) => Math.cos(angle(Math.floor(i / c.half), i % c.half)));
      const sin = Float32Array.from({ length: maxPos * c.half }, (_, i) => Math.sin(angle(Math.floor(i / c.half), i % c.half)));
      const [b, s] = c.dims.length === 4 ? [c.dims[0] as number, c.dims[2] as number] : [c.dims[0] as number, c.dims[1] as number];
      const positions =
        c.positions === 'offset'
          ? int64s([1], [5])
          : int64s(
              [b, s],
              Array.from({ length: b * s }, () => Math.floor(random() * maxPos)),
            );
      const attrs: Attr[] = [{ name: 'interleaved', int: c.interleaved ? 1 : 0 }];
      if (c.numHeads) attrs.push({ name: 'num_heads', int: c.numHeads });
      if (c.rotaryDim) attrs.push({ name: 'rotary_embedding_dim', int: c.rotaryDim });
      if (c.scale) attrs.push({ name: 'scale', float: c.scale });
      await expectLikeOrt({
        label: `RotaryEmbedding ${c.name}`,
        bytes: singleNodeModel(
          'RotaryEmbedding',
          MS,
          [
            op('input', 'float32', c.dims),
            op('position_ids', 'int64', [...positions.dims]),
            op('cos_cache', 'float32', [maxPos, c.half]),
            op('sin_cache', 'float32', [maxPos, c.half]),
          ],
          [op('output', 'float32', c.dims)],
          attrs,
        ),
        feeds: {
          input: randomFloats('float32', c.dims, random),
          position_ids: positions,
          cos_cache: { type: 'float32', dims: [maxPos, c.half], data: cos },
          sin_cache: { type: 'float32', dims: [maxPos, c.half], data: sin },
        },
        outputs: ['output'],
        tolerance: 1e-5,
      });
    }, 60_000);
});
