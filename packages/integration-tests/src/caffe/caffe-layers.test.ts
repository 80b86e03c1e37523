// Caffe layers beyond the BVLC nets, and a V1 prototxt against its V2 twin: tsge against OpenCV
// (each listed layer's output) on the same prototxt, seeded caffemodel and input. OpenCV has no
// learned-blob Bias layer and ignores log_param and LRN's k, so those are covered by the parser's own tests.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectClose, runTsge } from './caffe-run.fixture.js';
import { randomCaffemodel } from './caffe-weights.fixture.js';
import { runOpenCvCaffe, runOpenCvCaffeLayers } from './opencv.fixture.js';

const caffeDir = path.resolve(process.cwd(), '../shared/testdata/models/caffe');
const bytes = (s: string) => new TextEncoder().encode(s);

function randomInput(count: number, seed: number): Float32Array {
  let state = seed >>> 0;
  return Float32Array.from({ length: count }, () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return 2 * (state / 4294967296) - 1;
  });
}

const NETS: { name: string; dims: number[]; outputs: string[]; body: string }[] = [
  {
    name: 'convolutions and activations',
    dims: [1, 3, 9, 9],
    outputs: ['c1', 'pr', 'd1', 'elu', 'abs', 'pow', 'log', 'bnll', 'exp', 'tanh', 'sig'],
    body: `
      layer { name: "c1" type: "Convolution" bottom: "data" top: "c1" convolution_param { num_output: 6 kernel_h: 3 kernel_w: 2 stride_h: 2 stride_w: 1 pad_h: 1 pad_w: 0 } }
      layer { name: "c2" type: "Convolution" bottom: "c1" top: "c2" convolution_param { num_output: 6 kernel_size: 3 group: 3 dilation: 2 pad: 2 bias_term: false } }
      layer { name: "pr" type: "PReLU" bottom: "c2" top: "c2" }
      layer { name: "d1" type: "Deconvolution" bottom: "c2" top: "d1" convolution_param { num_output: 4 kernel_size: 4 stride: 2 pad: 1 } }
      layer { name: "elu" type: "ELU" bottom: "d1" top: "elu" elu_param { alpha: 0.7 } }
      layer { name: "abs" type: "AbsVal" bottom: "elu" top: "abs" }
      layer { name: "pow" type: "Power" bottom: "abs" top: "pow" power_param { power: 2 scale: 0.5 shift: 1 } }
      layer { name: "log" type: "Log" bottom: "pow" top: "log" }
      layer { name: "bnll" type: "BNLL" bottom: "log" top: "bnll" }
      layer { name: "exp" type: "Exp" bottom: "bnll" top: "exp" exp_param { base: 3 scale: 0.1 } }
      layer { name: "relu" type: "ReLU" bottom: "c1" top: "relu" relu_param { negative_slope: 0.1 } }
      layer { name: "tanh" type: "TanH" bottom: "relu" top: "tanh" }
      layer { name: "sig" type: "Sigmoid" bottom: "relu" top: "sig" }`,
  },
  {
    name: 'pooling and normalisation',
    dims: [1, 4, 8, 8],
    outputs: ['mp', 'ap', 'ap0', 'gp', 'sc', 'lrn1', 'lrn2', 'norm', 'mvn'],
    body: `
      layer { name: "mp" type: "Pooling" bottom: "data" top: "mp" pooling_param { pool: MAX kernel_size: 3 stride: 2 pad: 1 } }
      layer { name: "ap" type: "Pooling" bottom: "data" top: "ap" pooling_param { pool: AVE kernel_size: 3 stride: 2 pad: 1 } }
      layer { name: "ap0" type: "Pooling" bottom: "data" top: "ap0" pooling_param { pool: AVE kernel_size: 3 stride: 2 } }
      layer { name: "gp" type: "Pooling" bottom: "data" top: "gp" pooling_param { pool: AVE global_pooling: true } }
      layer { name: "bn" type: "BatchNorm" bottom: "data" top: "bn" }
      layer { name: "sc" type: "Scale" bottom: "bn" top: "sc" scale_param { bias_term: true } }
      layer { name: "lrn1" type: "LRN" bottom: "data" top: "lrn1" lrn_param { local_size: 3 alpha: 0.5 beta: 0.75 } }
      layer { name: "lrn2" type: "LRN" bottom: "data" top: "lrn2" lrn_param { local_size: 3 alpha: 0.5 beta: 0.75 norm_region: WITHIN_CHANNEL } }
      layer { name: "norm" type: "Normalize" bottom: "data" top: "norm" norm_param { across_spatial: false channel_shared: false } }
      layer { name: "mvn" type: "MVN" bottom: "data" top: "mvn" }`,
  },
  {
    name: 'tensor layers',
    dims: [1, 4, 6, 6],
    outputs: ['cat', 'sm', 'crop', 'shuf', 'ip', 'pb'],
    body: `
      layer { name: "sl" type: "Slice" bottom: "data" top: "s1" top: "s2" slice_param { axis: 1 slice_point: 1 } }
      layer { name: "sp" type: "Split" bottom: "s2" top: "t1" top: "t2" }
      layer { name: "esum" type: "Eltwise" bottom: "t1" bottom: "t2" top: "esum" eltwise_param { operation: SUM coeff: 0.5 coeff: -2 } }
      layer { name: "eprod" type: "Eltwise" bottom: "t1" bottom: "esum" top: "eprod" eltwise_param { operation: PROD } }
      layer { name: "emax" type: "Eltwise" bottom: "eprod" bottom: "esum" top: "emax" eltwise_param { operation: MAX } }
      layer { name: "cat" type: "Concat" bottom: "s1" bottom: "emax" top: "cat" }
      layer { name: "perm" type: "Permute" bottom: "cat" top: "perm" permute_param { order: 0 order: 2 order: 3 order: 1 } }
      layer { name: "flat" type: "Flatten" bottom: "perm" top: "flat" flatten_param { axis: 1 end_axis: 2 } }
      layer { name: "resh" type: "Reshape" bottom: "flat" top: "resh" reshape_param { shape { dim: 0 dim: -1 dim: 8 } } }
      layer { name: "sm" type: "Softmax" bottom: "resh" top: "sm" softmax_param { axis: 2 } }
      layer { name: "pool" type: "Pooling" bottom: "data" top: "pool" pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
      layer { name: "crop" type: "Crop" bottom: "data" bottom: "pool" top: "crop" crop_param { axis: 2 offset: 1 offset: 2 } }
      layer { name: "shuf" type: "ShuffleChannel" bottom: "data" top: "shuf" shuffle_channel_param { group: 2 } }
      layer { name: "ip" type: "InnerProduct" bottom: "data" top: "ip" inner_product_param { num_output: 5 } }
      layer { name: "pb" type: "PriorBox" bottom: "pool" bottom: "data" top: "pb" prior_box_param { min_size: 2 max_size: 4 aspect_ratio: 2 flip: true clip: true variance: 0.1 variance: 0.1 variance: 0.2 variance: 0.2 } }`,
  },
];

describe('Caffe layers match OpenCV', () => {
  for (const net of NETS) {
    it(net.name, async () => {
      const prototxt = bytes(`input: "data" input_shape { ${net.dims.map((d) => `dim: ${d}`).join(' ')} }\n${net.body}`);
      const caffemodel = await randomCaffemodel(prototxt, 11);
      const data = randomInput(
        net.dims.reduce((a, b) => a * b, 1),
        5,
      );
      const expected = await runOpenCvCaffeLayers(prototxt, caffemodel, net.dims, data, net.outputs);
      const graphOutputs = await runTsgeOutputs(prototxt, caffemodel, net.dims, data, net.outputs);
      net.outputs.forEach((name, i) => {
        expectClose(graphOutputs[i] as never, expected[i] as never, `${net.name}: ${name}`);
      });
    }, 60_000);
  }
});

async function runTsgeOutputs(prototxt: Uint8Array, weights: Uint8Array, dims: number[], data: Float32Array, outputs: string[]) {
  const result = await runTsge(prototxt, weights, 'data', dims, data, 'layers.prototxt', outputs);
  return outputs.map((name) => result[name]);
}

/** The V1 (`layers`, enum types, net-level input) spelling of a V2 prototxt, written here on the text. */
const V1_TYPES: Readonly<Record<string, string>> = {
  Convolution: 'CONVOLUTION',
  Pooling: 'POOLING',
  InnerProduct: 'INNER_PRODUCT',
  ReLU: 'RELU',
  Softmax: 'SOFTMAX',
  LRN: 'LRN',
  Dropout: 'DROPOUT',
  Concat: 'CONCAT',
};
function toV1(v2: string): string {
  let text = v2.replace(
    /layer\s*\{\s*name:\s*"[^"]+"\s*type:\s*"Input"\s*top:\s*"([^"]+)"\s*input_param\s*\{\s*shape:?\s*\{([^}]*)\}\s*\}\s*\}/,
    (_, top: string, dims: string) => [`input: "${top}"`, ...(dims.match(/\d+/g) ?? []).map((d) => `input_dim: ${d}`)].join('\n'),
  );
  text = text.replace(/\bparam\s*\{([^{}]*)\}/g, (_, body: string) =>
    body.replace(/lr_mult/g, 'blobs_lr').replace(/decay_mult/g, 'weight_decay'),
  );
  text = text.replace(/\blayer\s*\{(\s*name:\s*"[^"]+"\s*)type:\s*"(\w+)"/g, (_, head: string, type: string) => {
    const v1 = V1_TYPES[type];
    if (!v1) throw new Error(`no V1 type for ${type}`);
    return `layers {${head}type: ${v1}`;
  });
  if (/\blayer\s*\{/.test(text)) throw new Error('a layer was not converted');
  return text;
}

describe('V1 prototxts match their V2 twins', () => {
  for (const [file, weights] of [
    ['lenet/lenet.prototxt', 'lenet/lenet_iter_10000.caffemodel'],
    ['bvlc/cifar10_quick.prototxt', undefined],
  ] as const) {
    it(file, async () => {
      const v2 = readFileSync(path.join(caffeDir, file), 'utf8');
      const v1 = toV1(v2);
      expect(v1).toMatch(/layers \{/);
      expect(v1).not.toMatch(/\blayer \{/);
      const caffemodel = weights ? readFileSync(path.join(caffeDir, weights)) : await randomCaffemodel(bytes(v2), 2);
      const dims = file.includes('lenet') ? [1, 1, 28, 28] : [1, 3, 32, 32];
      const data = randomInput(
        dims.reduce((a, b) => a * b, 1),
        8,
      );
      const fromV2 = await runTsge(bytes(v2), caffemodel, 'data', dims, data);
      const fromV1 = await runTsge(bytes(v1), caffemodel, 'data', dims, data, 'v1.prototxt');
      expect(Object.keys(fromV1)).toEqual(Object.keys(fromV2));
      for (const name of Object.keys(fromV2))
        expect(Array.from(fromV1[name]?.data ?? []), name).toEqual(Array.from(fromV2[name]?.data ?? []));
      // and OpenCV, which upgrades V1 itself, agrees with tsge on the V1 file
      const opencv = await runOpenCvCaffe(bytes(v1), caffemodel, dims, data);
      expectClose(Object.values(fromV1)[0] as never, opencv, `${file} as V1`);
    }, 60_000);
  }
});
