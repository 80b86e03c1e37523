import { readFileSync } from 'node:fs';
import path from 'node:path';
import { type Graph, verifyGraph } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { caffeParser, initializeCaffemodel, parseCaffe, sniffCaffe } from './index.js';

const caffeDir = path.resolve(process.cwd(), '../shared/testdata/models/caffe');
const lenetPrototxt = readFileSync(path.join(caffeDir, 'lenet/lenet.prototxt'));
const lenetWeights = readFileSync(path.join(caffeDir, 'lenet/lenet_iter_10000.caffemodel'));
const text = (s: string) => new TextEncoder().encode(s);
const ops = (graph: Graph | undefined) => graph?.nodes.filter((n) => n.opDesc.type !== 'Const').map((n) => n.opDesc.type);
const codes = (r: { diagnostics: readonly { code: string }[] }) => r.diagnostics.map((d) => d.code);

const SSD_BOTTOMS = `input: "loc" input_shape { dim: 1 dim: 8 } input: "conf" input_shape { dim: 1 dim: 6 } input: "pb" input_shape { dim: 1 dim: 2 dim: 8 }`;

describe('Caffe parser', () => {
  it('reads lenet (prototxt + caffemodel) into canonical ops with the trained weights', async () => {
    const result = await parseCaffe({ bytes: lenetPrototxt, path: 'lenet.prototxt' }, { extra: { weights: lenetWeights } });
    expect(result.diagnostics).toEqual([]);
    expect(ops(result.graph)).toEqual([
      'Data',
      'Conv',
      'MaxPool',
      'Conv',
      'MaxPool',
      'Flatten',
      'Gemm',
      'Relu',
      'Gemm',
      'Softmax',
      'NetOutput',
    ]);
    const graph = result.graph as Graph;
    expect(graph.findNode('data')?.opDesc.outputDescs[0]?.shape).toEqual([64, 1, 28, 28]);
    expect(graph.findNode('prob')?.opDesc.outputDescs[0]?.shape).toEqual([64, 10]);
    const weight = graph.findNode('conv1/weight')?.opDesc.attrs.get('value');
    expect(weight?.kind === 'tensor' && weight.value.dims).toEqual([20, 1, 5, 5]);
    expect(weight?.kind === 'tensor' && Math.abs((weight.value.data as Float32Array)[0] as number)).toBeGreaterThan(0);
    expect(verifyGraph(graph).filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('reads a caffemodel alone (structure and weights in one file)', async () => {
    const result = await parseCaffe(
      { bytes: lenetWeights, path: 'lenet.caffemodel' },
      { inputShapes: new Map([['data', [1, 1, 28, 28]]]) },
    );
    // this caffemodel was saved from the training net: its only data layer is TRAIN-only, so the
    // deploy (TEST) net has no "data" blob, and that is said plainly
    expect(codes(result).filter((c) => c !== 'TSGE-E3209')).toEqual(['TSGE-E3204']);
    expect(result.diagnostics.find((d) => d.code === 'TSGE-E3204')?.message).toMatch(/layer conv1: bottom data/);
  });

  it('refuses a prototxt without weights unless initialised weights are asked for', async () => {
    const refused = await parseCaffe({ bytes: lenetPrototxt, path: 'lenet.prototxt' });
    expect(refused.graph).toBeUndefined();
    expect(codes(refused)).toEqual(['TSGE-E3208']);
    expect(refused.diagnostics[0]?.message).toMatch(/conv1, conv2, ip1, ip2/);
    const filled = await parseCaffe({ bytes: lenetPrototxt }, { extra: { initializeWeights: { seed: 3 } } });
    expect(codes(filled)).toEqual([]);
    const again = await parseCaffe({ bytes: lenetPrototxt }, { extra: { initializeWeights: { seed: 3 } } });
    const value = (g: Graph | undefined) => g?.findNode('ip1/weight')?.opDesc.attrs.get('value');
    expect(value(filled.graph)).toEqual(value(again.graph));
  });

  it('writes a caffemodel with initialised weights that reads back', async () => {
    const { caffemodel } = await initializeCaffemodel(lenetPrototxt, {
      seed: 1,
      values: ({ layer, index, dims }) => (layer === 'ip2' && index === 1 ? new Float32Array(dims[0] as number).fill(7) : undefined),
    });
    const result = await parseCaffe({ bytes: lenetPrototxt }, { extra: { weights: caffemodel } });
    expect(codes(result)).toEqual([]);
    const bias = result.graph?.findNode('ip2/bias')?.opDesc.attrs.get('value');
    expect(bias?.kind === 'tensor' && Array.from(bias.value.data as Float32Array)).toEqual(new Array(10).fill(7));
  });

  it('takes inputs in every spelling and drops TRAIN-phase and excluded layers', async () => {
    const body = `
      layer { name: "train_only" type: "Dropout" bottom: "data" top: "data" include { phase: TRAIN } }
      layer { name: "excluded" type: "Dropout" bottom: "data" top: "data" exclude { phase: TEST } }
      layer { name: "staged" type: "Dropout" bottom: "data" top: "data" include { stage: "deploy" } }
      layer { name: "relu" type: "ReLU" bottom: "data" top: "data" }
      layer { name: "sig" type: "Sigmoid" bottom: "data" top: "out" }`;
    for (const head of [
      'input: "data" input_shape { dim: 2 dim: 3 }',
      'input: "data" input_dim: 2 input_dim: 3 input_dim: 1 input_dim: 1',
      'layer { name: "in" type: "Input" top: "data" input_param { shape { dim: 2 dim: 3 } } }',
    ]) {
      const result = await parseCaffe({ bytes: text(head + body) });
      expect(codes(result)).toEqual([]);
      expect(ops(result.graph)).toEqual(['Data', 'Relu', 'Sigmoid', 'NetOutput']);
    }
    const staged = await parseCaffe({ bytes: text(`state { stage: "deploy" } ${'input: "data" input_shape { dim: 2 }'} ${body}`) });
    expect(ops(staged.graph)).toEqual(['Data', 'Identity', 'Relu', 'Sigmoid', 'NetOutput']);
  });

  it('follows in-place blobs: the last writer of a name is what later layers read', async () => {
    const net = `input: "x" input_shape { dim: 1 dim: 2 dim: 4 dim: 4 }
      layer { name: "a" type: "ReLU" bottom: "x" top: "x" }
      layer { name: "b" type: "TanH" bottom: "x" top: "x" }
      layer { name: "c" type: "Split" bottom: "x" top: "x1" top: "x2" }
      layer { name: "d" type: "Eltwise" bottom: "x1" bottom: "x2" top: "y" eltwise_param { operation: SUM coeff: 2 coeff: -1 } }`;
    const graph = (await parseCaffe({ bytes: text(net) })).graph as Graph;
    const tanh = graph.findNode('b');
    expect(tanh?.inData[0]?.peer?.node.name).toBe('a');
    expect(ops(graph)).toEqual(['Data', 'Relu', 'Tanh', 'Mul', 'Mul', 'Add', 'NetOutput']);
    const out = graph.nodes.find((n) => n.opDesc.type === 'NetOutput');
    expect(out?.opDesc.inputNames).toEqual(['y']);
  });

  it.each([
    ['input: "x" input_shape { dim: 1 } layer { name: "q" type: "Quantum" bottom: "x" top: "y" }', 'TSGE-E3203', /Quantum/],
    ['input: "x" input_shape { dim: 1 } layer { name: "r" type: "ReLU" bottom: "nope" top: "y" }', 'TSGE-E3204', /nope/],
    ['layer { name: "in" type: "Input" top: "x" } layer { name: "r" type: "ReLU" bottom: "x" top: "y" }', 'TSGE-E3209', /no shape/],
    [
      'input: "x" input_shape { dim: 1 dim: 3 dim: 8 dim: 8 } layer { name: "c" type: "Convolution" bottom: "x" top: "y" convolution_param { num_output: 4 kernel_size: 3 group: 2 } }',
      'TSGE-E3205',
      /group 2 must divide/,
    ],
    [
      'input: "x" input_shape { dim: 1 dim: 3 dim: 8 dim: 8 } layer { name: "p" type: "Pooling" bottom: "x" top: "y" pooling_param { pool: STOCHASTIC kernel_size: 2 } }',
      'TSGE-E3205',
      /STOCHASTIC/,
    ],
    [
      'input: "x" input_shape { dim: 2 dim: 3 } layer { name: "r" type: "Reshape" bottom: "x" top: "y" reshape_param { shape { dim: 4 dim: -1 } } }',
      'TSGE-E3205',
      /cannot infer/,
    ],
    ['input: "x" input_shape { dim: 2 } layer { name: "l" type: "SoftmaxWithLoss" bottom: "x" top: "y" }', 'TSGE-E3203', /training layer/],
    ['layer { name: "a" type: "ReLU" } layers { name: "b" type: RELU }', 'TSGE-E3202', /mixes V1/],
  ])('reports %s as %s', async (net, code, message) => {
    const result = await parseCaffe({ bytes: text(net), path: 'bad.prototxt' }, { extra: { initializeWeights: true } });
    expect(result.graph).toBeUndefined();
    const found = result.diagnostics.find((d) => d.code === code);
    expect(found?.message, JSON.stringify(result.diagnostics)).toMatch(message);
  });

  it('rejects weights of the wrong size for a layer', async () => {
    const other = `input: "data" input_shape { dim: 1 dim: 1 dim: 28 dim: 28 }
      layer { name: "conv1" type: "Convolution" bottom: "data" top: "c" convolution_param { num_output: 7 kernel_size: 5 } }`;
    const result = await parseCaffe({ bytes: text(other) }, { extra: { weights: lenetWeights } });
    expect(codes(result)).toEqual(['TSGE-E3207']);
    expect(result.diagnostics[0]?.message).toMatch(/layer conv1: blob 0 has 500 values; its shape \[7,1,5,5\] needs 175/);
  });

  it('reads V1 layers with enum types', async () => {
    const v1 = `input: "x" input_dim: 1 input_dim: 2 input_dim: 3 input_dim: 3
      layers { name: "a" type: ABSVAL bottom: "x" top: "a" }
      layers { name: "b" type: BNLL bottom: "a" top: "b" }
      layers { name: "c" type: POWER bottom: "b" top: "c" power_param { power: 2 scale: 3 shift: 1 } }
      layers { name: "d" type: SOFTMAX bottom: "c" top: "d" }`;
    const result = await parseCaffe({ bytes: text(v1) });
    expect(codes(result)).toEqual([]);
    expect(ops(result.graph)).toEqual(['Data', 'Abs', 'Softplus', 'Mul', 'Add', 'Pow', 'Softmax', 'NetOutput']);
  });

  it('maps the parameters OpenCV ignores (Log base/shift, LRN k, learned Bias) as Caffe defines them', async () => {
    const net = `input: "x" input_shape { dim: 1 dim: 3 dim: 4 dim: 4 }
      layer { name: "log" type: "Log" bottom: "x" top: "log" log_param { base: 2 scale: 3 shift: 0.5 } }
      layer { name: "lrn" type: "LRN" bottom: "log" top: "lrn" lrn_param { local_size: 3 k: 2 } }
      layer { name: "b" type: "Bias" bottom: "lrn" top: "b" }`;
    const graph = (await parseCaffe({ bytes: text(net) }, { extra: { initializeWeights: true } })).graph as Graph;
    expect(ops(graph)).toEqual(['Data', 'Mul', 'Add', 'Log', 'Mul', 'LRN', 'Reshape', 'Add', 'NetOutput']);
    const scalar = (name: string) => {
      const v = graph.findNode(name)?.opDesc.attrs.get('value');
      return v?.kind === 'tensor' ? Array.from(v.value.data as Float32Array) : undefined;
    };
    expect(scalar('log/scale')).toEqual([3]);
    expect(scalar('log/shift')).toEqual([0.5]);
    expect(scalar('log/inv_log_base')?.[0]).toBeCloseTo(1 / Math.LN2, 6);
    expect(graph.findNode('lrn')?.opDesc.attrs.get('bias')).toEqual({ kind: 'float', value: 2 });
    const bias = graph.findNode('b/bias')?.opDesc.attrs.get('value');
    expect(bias?.kind === 'tensor' && bias.value.dims).toEqual([3]);
    expect(graph.findNode('b')?.opDesc.type).toBe('Reshape');
    expect(graph.findNode('b/1')?.inData[1]?.peer?.node.name).toBe('b');
  });

  it('maps DetectionOutput to tsge::DetectionOutput with every parameter, Caffe defaults for the unset ones', async () => {
    const layer = (param: string) =>
      `${SSD_BOTTOMS} layer { name: "det" type: "DetectionOutput" bottom: "loc" bottom: "conf" bottom: "pb" top: "det" detection_output_param { ${param} } }`;
    const full = await parseCaffe({
      bytes: text(
        layer(
          'num_classes: 3 share_location: true background_label_id: 1 nms_param { nms_threshold: 0.45 top_k: 400 eta: 0.9 } code_type: CENTER_SIZE variance_encoded_in_target: true keep_top_k: 200 confidence_threshold: 0.01',
        ),
      ),
    });
    expect(codes(full)).toEqual([]);
    const node = full.graph?.findNode('det')?.opDesc;
    expect(node?.domain).toBe('tsge');
    expect(node?.type).toBe('DetectionOutput');
    const attrs = Object.fromEntries([...(node?.attrs ?? [])].map(([k, v]) => [k, (v as { value: unknown }).value]));
    expect(attrs).toEqual({
      num_classes: 3,
      share_location: 1,
      background_label_id: 1,
      nms_threshold: expect.closeTo(0.45, 6),
      top_k: 400,
      eta: expect.closeTo(0.9, 6),
      keep_top_k: 200,
      code_type: 'CENTER_SIZE',
      variance_encoded_in_target: 1,
      confidence_threshold: expect.closeTo(0.01, 6),
    });
    const defaults = await parseCaffe({
      bytes: text(layer('num_classes: 3 code_type: CORNER_SIZE save_output_param { output_directory: "out" }')),
    });
    expect(codes(defaults)).toEqual(['TSGE-E3210']);
    const d = defaults.graph?.findNode('det')?.opDesc.attrs;
    expect([d?.get('top_k'), d?.get('keep_top_k'), d?.get('nms_threshold'), d?.get('code_type'), d?.has('confidence_threshold')]).toEqual([
      { kind: 'int', value: -1 },
      { kind: 'int', value: -1 },
      { kind: 'float', value: expect.closeTo(0.3, 6) },
      { kind: 'string', value: 'CORNER_SIZE' },
      false,
    ]);
  });

  it.each([
    ['', /num_classes is required/],
    ['num_classes: 3 normalized_bbox: false', /normalized_bbox: false/],
    ['num_classes: 3 background_label_id: 3', /background_label_id 3/],
    ['num_classes: 3 nms_param { nms_threshold: 1.5 }', /nms_threshold 1.5/],
    ['num_classes: 3 nms_param { eta: 0 }', /eta 0/],
    ['num_classes: 3 keep_top_k: -2', /keep_top_k must be/],
  ])('refuses DetectionOutput with { %s }', async (param, message) => {
    const net = `${SSD_BOTTOMS} layer { name: "det" type: "DetectionOutput" bottom: "loc" bottom: "conf" bottom: "pb" top: "det" detection_output_param { ${param} } }`;
    const result = await parseCaffe({ bytes: text(net), path: 'ssd.prototxt' });
    expect(result.graph).toBeUndefined();
    expect(codes(result)).toEqual(['TSGE-E3205']);
    expect(result.diagnostics[0]?.message).toMatch(/det/);
    expect(result.diagnostics[0]?.message).toMatch(message);
  });

  it('refuses DetectionOutput without its three bottoms', async () => {
    const net = `${SSD_BOTTOMS} layer { name: "det" type: "DetectionOutput" bottom: "loc" bottom: "conf" top: "det" detection_output_param { num_classes: 3 } }`;
    const result = await parseCaffe({ bytes: text(net) });
    expect(result.diagnostics[0]?.message).toMatch(/needs 3 bottoms/);
  });

  it('sniffs prototxt and caffemodel files and is found as framework 0', () => {
    expect(caffeParser.framework).toBe(0);
    expect(caffeParser.name).toBe('caffe');
    expect(sniffCaffe(lenetPrototxt)).toBeGreaterThan(0.5);
    expect(sniffCaffe(lenetWeights)).toBeGreaterThan(0.5);
    expect(sniffCaffe(text('{"format": "graph-model"}'))).toBe(0);
    expect(sniffCaffe(new Uint8Array([8, 7, 18, 3, 1, 2, 3]))).toBe(0);
  });
});
