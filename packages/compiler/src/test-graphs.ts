import type { Graph, OpRegistry } from '@tsge/metadef';
import { GraphBuilder, attr, createTensor } from '@tsge/metadef';

/** Deterministic pseudo-random floats in [-1, 1). */
export function randomFloats(count: number, seed = 1): Float32Array {
  const out = new Float32Array(count);
  let s = seed >>> 0 || 1;
  for (let i = 0; i < count; i++) {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    out[i] = ((s >>> 0) / 4294967296) * 2 - 1;
  }
  return out;
}

/** x[1,3,8,8] → Conv(4) → BatchNorm → Relu → two branches (Conv 1×1, MaxPool) → Add → Flatten → MatMul + bias → Relu. */
export function smallCnn(ops: OpRegistry): Graph {
  const b = new GraphBuilder('small_cnn', { ops });
  const x = b.input('x', 'float32', [1, 3, 8, 8]);
  const w1 = b.constant('w1', createTensor('float32', [4, 3, 3, 3], randomFloats(108, 1)));
  const b1 = b.constant('b1', createTensor('float32', [4], randomFloats(4, 2)));
  const conv1 = b.op('Conv', [x, w1, b1], { name: 'conv1', attrs: { pads: attr.ints([1, 1, 1, 1]) } });
  const bn = b.op(
    'BatchNormalization',
    [
      conv1,
      b.constant('bn_scale', createTensor('float32', [4], Float32Array.of(1, 0.5, 2, 1.5))),
      b.constant('bn_bias', createTensor('float32', [4], Float32Array.of(0.1, -0.2, 0.3, 0))),
      b.constant('bn_mean', createTensor('float32', [4], Float32Array.of(0.05, 0.1, -0.1, 0))),
      b.constant('bn_var', createTensor('float32', [4], Float32Array.of(1, 2, 0.5, 1))),
    ],
    { name: 'bn' },
  );
  const relu1 = b.op('Relu', [bn], { name: 'relu1' });
  const w2 = b.constant('w2', createTensor('float32', [4, 4, 1, 1], randomFloats(16, 3)));
  const conv2 = b.op('Conv', [relu1, w2], { name: 'conv2' });
  const pool = b.op('MaxPool', [relu1], { name: 'pool', attrs: { kernel_shape: attr.ints([3, 3]), pads: attr.ints([1, 1, 1, 1]) } });
  const sum = b.op('Add', [conv2, pool], { name: 'sum' });
  const ident = b.op('Identity', [sum], { name: 'ident' });
  const flat = b.op('Flatten', [ident], { name: 'flat' });
  const fc = b.constant('fc', createTensor('float32', [256, 10], randomFloats(2560, 4)));
  const mm = b.op('MatMul', [flat, fc], { name: 'fc_mm' });
  const bias = b.op('Add', [mm, b.constant('fc_b', createTensor('float32', [10], randomFloats(10, 5)))], { name: 'fc_add' });
  const y = b.op('Relu', [bias], { name: 'out_relu' });
  b.output(y, 'y');
  return b.build();
}
