// MindIR files through tsge (discovered parser → compile → .om → run) against outputs computed
// here in plain JS from the inputs and the file's parameters (no MindSpore runtime exists here).
import path from 'node:path';
import { buildModel, loadModel, parseModel } from '@tsge/ge';
import { type Graph, GraphBuilder, type HostTensor, attr, createTensor, createTensorDesc, isHostTensor, serializeAir } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';

const dir = path.resolve(process.cwd(), '../shared/testdata/models/mindspore');

function randomInput(count: number, seed: number): Float32Array {
  let state = seed >>> 0;
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    out[i] = 2 * (state / 4294967296) - 1;
  }
  return out;
}

async function run(graph: Graph, feeds: Record<string, HostTensor>): Promise<Float32Array[]> {
  const model = await loadModel(await buildModel(graph), { threads: 1 });
  try {
    const out = await model.run(feeds);
    return Object.values(out).map((v) => {
      if (!isHostTensor(v)) throw new Error('not a tensor');
      return v.data as Float32Array;
    });
  } finally {
    await model.release();
  }
}

/** A Const node's values by name (parameters are named by their MindSpore names). */
function param(graph: Graph, name: string): { dims: readonly number[]; data: Float32Array } {
  const value = graph.findNode(name)?.opDesc.attrs.get('value');
  if (value?.kind !== 'tensor') throw new Error(`no constant ${name}`);
  return { dims: value.value.dims, data: value.value.data as Float32Array };
}

function expectClose(actual: Float32Array | undefined, expected: ArrayLike<number>, tolerance = 1e-5) {
  expect(actual?.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++)
    expect(Math.abs((actual?.[i] as number) - (expected[i] as number)), `element ${i}`).toBeLessThanOrEqual(
      tolerance * (1 + Math.abs(expected[i] as number)),
    );
}

const sigmoid = (x: number) => 1 / (1 + Math.exp(-x));

/** Valid convolution without bias, NCHW, stride 1. */
function conv(x: Float32Array, [c, h, w]: number[], weight: { dims: readonly number[]; data: Float32Array }): [Float32Array, number[]] {
  const [o, , kh, kw] = weight.dims as [number, number, number, number];
  const oh = h - kh + 1;
  const ow = w - kw + 1;
  const out = new Float32Array(o * oh * ow);
  for (let oc = 0; oc < o; oc++)
    for (let y = 0; y < oh; y++)
      for (let xx = 0; xx < ow; xx++) {
        let sum = 0;
        for (let ic = 0; ic < (c as number); ic++)
          for (let i = 0; i < kh; i++)
            for (let j = 0; j < kw; j++)
              sum += (x[(ic * h + y + i) * w + xx + j] as number) * (weight.data[((oc * (c as number) + ic) * kh + i) * kw + j] as number);
        out[(oc * oh + y) * ow + xx] = sum;
      }
  return [out, [o, oh, ow]];
}

function reluPool([x, [c, h, w]]: [Float32Array, number[]]): [Float32Array, number[]] {
  const oh = Math.floor((h as number) / 2);
  const ow = Math.floor((w as number) / 2);
  const out = new Float32Array((c as number) * oh * ow);
  for (let ch = 0; ch < (c as number); ch++)
    for (let y = 0; y < oh; y++)
      for (let xx = 0; xx < ow; xx++) {
        let m = 0; // relu before max pooling: the max of max(0, v)
        for (let i = 0; i < 2; i++)
          for (let j = 0; j < 2; j++) m = Math.max(m, x[(ch * (h as number) + 2 * y + i) * (w as number) + 2 * xx + j] as number);
        out[(ch * oh + y) * ow + xx] = m;
      }
  return [out, [c as number, oh, ow]];
}

/** y = x W (W [in, out]), optionally relu. */
function dense(x: ArrayLike<number>, w: { dims: readonly number[]; data: Float32Array }, relu: boolean): Float32Array {
  const [k, n] = w.dims as [number, number];
  const out = new Float32Array(n);
  for (let j = 0; j < n; j++) {
    let sum = 0;
    for (let i = 0; i < k; i++) sum += (x[i] as number) * (w.data[i * n + j] as number);
    out[j] = relu ? Math.max(sum, 0) : sum;
  }
  return out;
}

describe('MindIR files match hand-computed outputs', () => {
  it('relu.mindir (MindSpore 1.5): max(x, 0)', async () => {
    const graph = await parseModel(path.join(dir, 'relu.mindir'));
    const x = randomInput(4, 1);
    const [y] = await run(graph, { x: createTensor('float32', [1, 1, 2, 2], x) });
    expectClose(
      y,
      Array.from(x, (v) => Math.max(v, 0)),
    );
  });

  it('add_no_encrpty.mindir (MindSpore 1.1): x + y', async () => {
    const graph = await parseModel(path.join(dir, 'add_no_encrpty.mindir'));
    const x = randomInput(4, 2);
    const y = randomInput(4, 3);
    const [z] = await run(graph, { x_: createTensor('float32', [2, 2], x), y_: createTensor('float32', [2, 2], y) });
    expectClose(
      z,
      Array.from(x, (v, i) => v + (y[i] as number)),
    );
  });

  it('ori_net.mindir (MindSpore 2.0, primitives): LeNet-5 without biases', async () => {
    const graph = await parseModel(path.join(dir, 'ori_net.mindir'));
    const x = randomInput(32 * 32, 4);
    const [got] = await run(graph, { x: createTensor('float32', [1, 1, 32, 32], x) });
    const matmuls = graph.nodes.filter((n) => n.opDesc.type === 'MatMul').map((n) => n.inData[1]?.peer?.node.name as string);
    const p1 = reluPool(conv(x, [1, 32, 32], param(graph, 'conv1.weight')));
    const p2 = reluPool(conv(p1[0], p1[1], param(graph, 'conv2.weight')));
    const f1 = dense(p2[0], param(graph, matmuls[0] as string), true);
    const f2 = dense(f1, param(graph, matmuls[1] as string), true);
    const expected = dense(f2, param(graph, matmuls[2] as string), false);
    expect(Math.max(...expected.map(Math.abs))).toBeGreaterThan(1e-3);
    expectClose(got, expected, 1e-4);
  });

  it('old_version_mindir_2.mindir (MindSpore 1.6): LSTM, last step, dense, tanh', async () => {
    const graph = await parseModel(path.join(dir, 'old_version_mindir_2.mindir'));
    const x = randomInput(9 * 10, 5); // [1, 9, 10]: batch, time, features
    const h0 = randomInput(50, 6);
    const c0 = randomInput(50, 7);
    const [got] = await run(graph, {
      inputs: createTensor('float32', [1, 9, 10], x),
      h: createTensor('float32', [1, 1, 50], h0),
      c: createTensor('float32', [1, 1, 50], c0),
    });
    const wih = param(graph, 'lstm.weight_ih_l0').data;
    const whh = param(graph, 'lstm.weight_hh_l0').data;
    const bih = param(graph, 'lstm.bias_ih_l0').data;
    const bhh = param(graph, 'lstm.bias_hh_l0').data;
    const H = 50;
    let h = Float64Array.from(h0);
    let c = Float64Array.from(c0);
    for (let t = 0; t < 9; t++) {
      // gates in MindSpore's (and PyTorch's) order: input, forget, cell, output
      const gates = new Float64Array(4 * H);
      for (let r = 0; r < 4 * H; r++) {
        let sum = (bih[r] as number) + (bhh[r] as number);
        for (let i = 0; i < 10; i++) sum += (wih[r * 10 + i] as number) * (x[t * 10 + i] as number);
        for (let i = 0; i < H; i++) sum += (whh[r * H + i] as number) * (h[i] as number);
        gates[r] = sum;
      }
      const nh = new Float64Array(H);
      const nc = new Float64Array(H);
      for (let k = 0; k < H; k++) {
        nc[k] = sigmoid(gates[H + k] as number) * (c[k] as number) + sigmoid(gates[k] as number) * Math.tanh(gates[2 * H + k] as number);
        nh[k] = sigmoid(gates[3 * H + k] as number) * Math.tanh(nc[k] as number);
      }
      h = nh;
      c = nc;
    }
    const w = param(graph, 'dense1.weight').data; // [4, 50]
    const b = param(graph, 'dense1.bias').data;
    const expected = Array.from({ length: 4 }, (_, j) => {
      let sum = b[j] as number;
      for (let k = 0; k < H; k++) sum += (w[j * H + k] as number) * (h[k] as number);
      return Math.tanh(sum);
    });
    expectClose(got, expected, 1e-4);
  });

  it('refuses the encrypted MindIR with TSGE-E3302', async () => {
    await expect(parseModel(path.join(dir, 'add_encrpty_key_0123456789ABCDEF.mindir'))).rejects.toMatchObject({ code: 'TSGE-E3302' });
    await expect(parseModel(path.join(dir, 'add_encrpty_key_0123456789ABCDEF.mindir'))).rejects.toThrow(/encrypted/);
  });
});

describe('.air with GE op types (as MindSpore exports for Ascend)', () => {
  it('Conv2D, BiasAdd, Relu, TransData, Reshape, MatMulV2 run as hand-computed', async () => {
    const b = new GraphBuilder('ge');
    const x = b.input('x', 'float32', [1, 2, 3, 3]);
    const desc = (shape: number[]) => ({ outputDescs: [createTensorDesc('float32', shape)] });
    const wData = Float32Array.of(1, 2, -1, 0.5);
    const conv = b.op('Conv2D', [x, b.constant('w', wData, [2, 2, 1, 1])], {
      attrs: {
        strides: attr.ints([1, 1, 1, 1]),
        pads: attr.ints([0, 0, 0, 0]),
        dilations: attr.ints([1, 1, 1, 1]),
        groups: attr.int(1),
        data_format: attr.string('NCHW'),
      },
      ...desc([1, 2, 3, 3]),
    });
    const biased = b.op('BiasAdd', [conv, b.constant('b', Float32Array.of(0.25, -3), [2])], {
      attrs: { data_format: attr.string('NCHW') },
      ...desc([1, 2, 3, 3]),
    });
    const relu = b.op('Relu', [biased], desc([1, 2, 3, 3]));
    const same = b.op('TransData', [relu], {
      attrs: { src_format: attr.string('NCHW'), dst_format: attr.string('NCHW') },
      ...desc([1, 2, 3, 3]),
    });
    const flat = b.op('Reshape', [same, b.constant('shape', BigInt64Array.of(1n, 18n), [2])], desc([1, 18]));
    const w2 = Float32Array.from({ length: 72 }, (_, i) => ((i % 7) - 3) / 4);
    b.output(
      b.op('MatMulV2', [flat, b.constant('w2', w2, [4, 18])], {
        attrs: { transpose_x1: attr.bool(false), transpose_x2: attr.bool(true) },
        ...desc([1, 4]),
      }),
      'y',
    );
    const graph = await parseModel(serializeAir(b.build()), { fileName: 'net.air', format: 'mindspore' });
    const input = randomInput(18, 9);
    const [got] = await run(graph, { x: createTensor('float32', [1, 2, 3, 3], input) });
    const hidden = new Float32Array(18);
    for (let o = 0; o < 2; o++)
      for (let p = 0; p < 9; p++)
        hidden[o * 9 + p] = Math.max(
          0,
          (wData[o * 2] as number) * (input[p] as number) + (wData[o * 2 + 1] as number) * (input[9 + p] as number) + [0.25, -3][o]!,
        );
    const expected = Array.from({ length: 4 }, (_, j) => hidden.reduce((sum, h, k) => sum + h * (w2[j * 18 + k] as number), 0));
    expectClose(got, expected, 1e-5);
  });
});
