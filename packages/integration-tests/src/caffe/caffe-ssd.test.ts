// SSD (issue #17): PriorBox heads, Normalize, Permute/Flatten/Concat and DetectionOutput against
// OpenCV's dnn module on the same prototxt, seeded caffemodel and input: a small net in the layout
// of VGG-SSD's deploy prototxt in four DetectionOutput settings, and VGG-SSD 300 itself at 4
// channels. OpenCV's caffe.proto has no CORNER_SIZE and no nms eta, and it wants 1-channel priors
// with variance_encoded_in_target: those are checked on hand-computed values in kernels-js
// (detection-output.test.ts).
import { describe, expect, it } from 'vitest';
import { runTsge } from './caffe-run.fixture.js';
import { randomCaffemodel } from './caffe-weights.fixture.js';
import { runOpenCvCaffe } from './opencv.fixture.js';

const bytes = (s: string) => new TextEncoder().encode(s);
const CLASSES = 4;
const VOC_CLASSES = 21;

function randomInput(count: number, seed: number): Float32Array {
  let state = seed >>> 0;
  return Float32Array.from({ length: count }, () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return 2 * (state / 4294967296) - 1;
  });
}

interface Head {
  readonly bottom: string;
  readonly priors: number;
  readonly priorBox: string;
}

/** loc/conf convolutions, their permute + flatten, and the prior boxes of one feature map. */
function head(name: string, h: Head, locClasses: number, classes = CLASSES): string {
  const branch = (kind: string, outputs: number) => `
    layer { name: "${name}_mbox_${kind}" type: "Convolution" bottom: "${h.bottom}" top: "${name}_mbox_${kind}" convolution_param { num_output: ${outputs} pad: 1 kernel_size: 3 stride: 1 } }
    layer { name: "${name}_mbox_${kind}_perm" type: "Permute" bottom: "${name}_mbox_${kind}" top: "${name}_mbox_${kind}_perm" permute_param { order: 0 order: 2 order: 3 order: 1 } }
    layer { name: "${name}_mbox_${kind}_flat" type: "Flatten" bottom: "${name}_mbox_${kind}_perm" top: "${name}_mbox_${kind}_flat" flatten_param { axis: 1 } }`;
  return `${branch('loc', h.priors * 4 * locClasses)}${branch('conf', h.priors * classes)}
    layer { name: "${name}_mbox_priorbox" type: "PriorBox" bottom: "${h.bottom}" bottom: "data" top: "${name}_mbox_priorbox" prior_box_param { ${h.priorBox} } }`;
}

/** A VGG-SSD-shaped deploy prototxt, 3x32x32 input, three heads, ending in DetectionOutput with `detection`. */
function ssdPrototxt(detection: string, locClasses = 1): string {
  const heads: [string, Head][] = [
    [
      'conv2_norm',
      {
        bottom: 'conv2_norm',
        priors: 4,
        priorBox:
          'min_size: 6.0 max_size: 12.0 aspect_ratio: 2 flip: true clip: false variance: 0.1 variance: 0.1 variance: 0.2 variance: 0.2 step: 4 offset: 0.5',
      },
    ],
    [
      'conv3',
      {
        bottom: 'conv3',
        priors: 6,
        priorBox: 'min_size: 12 max_size: 20 aspect_ratio: [2, 3] flip: true clip: true variance: [0.1, 0.1, 0.2, 0.2] step: 8',
      },
    ],
    [
      'conv4',
      {
        bottom: 'conv4',
        priors: 3,
        priorBox: 'min_size: 20 aspect_ratio: 2 flip: true clip: false variance: 0.1 img_size: 32 offset: 0.25',
      },
    ],
  ];
  const concat = (kind: string, axis: number) =>
    `layer { name: "mbox_${kind}" type: "Concat" ${heads.map(([n]) => `bottom: "${n}_mbox_${kind}${kind === 'priorbox' ? '' : '_flat'}"`).join(' ')} top: "mbox_${kind}" concat_param { axis: ${axis} } }`;
  return `name: "ssd_tiny"
input: "data"
input_shape { dim: 1 dim: 3 dim: 32 dim: 32 }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1" convolution_param { num_output: 8 pad: 1 kernel_size: 3 stride: 2 } }
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
layer { name: "conv2" type: "Convolution" bottom: "conv1" top: "conv2" convolution_param { num_output: 8 pad: 1 kernel_size: 3 stride: 2 } }
layer { name: "relu2" type: "ReLU" bottom: "conv2" top: "conv2" }
layer { name: "conv2_norm" type: "Normalize" bottom: "conv2" top: "conv2_norm" norm_param { across_spatial: false scale_filler { type: "constant" value: 20 } channel_shared: false } }
layer { name: "pool2" type: "Pooling" bottom: "conv2" top: "pool2" pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
layer { name: "conv3" type: "Convolution" bottom: "pool2" top: "conv3" convolution_param { num_output: 8 pad: 1 kernel_size: 3 } }
layer { name: "relu3" type: "ReLU" bottom: "conv3" top: "conv3" }
layer { name: "conv4" type: "Convolution" bottom: "conv3" top: "conv4" convolution_param { num_output: 8 pad: 1 kernel_size: 3 stride: 2 } }
layer { name: "relu4" type: "ReLU" bottom: "conv4" top: "conv4" }
${heads.map(([n, h]) => head(n, h, locClasses)).join('\n')}
${concat('loc', 1)}
${concat('conf', 1)}
${concat('priorbox', 2)}
layer { name: "mbox_conf_reshape" type: "Reshape" bottom: "mbox_conf" top: "mbox_conf_reshape" reshape_param { shape { dim: 0 dim: -1 dim: ${CLASSES} } } }
layer { name: "mbox_conf_softmax" type: "Softmax" bottom: "mbox_conf_reshape" top: "mbox_conf_softmax" softmax_param { axis: 2 } }
layer { name: "mbox_conf_flatten" type: "Flatten" bottom: "mbox_conf_softmax" top: "mbox_conf_flatten" flatten_param { axis: 1 } }
layer {
  name: "detection_out"
  type: "DetectionOutput"
  bottom: "mbox_loc"
  bottom: "mbox_conf_flatten"
  bottom: "mbox_priorbox"
  top: "detection_out"
  include { phase: TEST }
  detection_output_param { num_classes: ${CLASSES} ${detection} }
}
`;
}

/** VGG-SSD 300's deploy layout (VOC, 21 classes): its pooling and stride chain, six heads with its PriorBox and DetectionOutput parameters; 4 channels per layer. */
function vggSsd300Prototxt(): string {
  const conv = (name: string, bottom: string, p: string) =>
    `layer { name: "${name}" type: "Convolution" bottom: "${bottom}" top: "${name}" convolution_param { num_output: 4 ${p} } }
layer { name: "relu_${name}" type: "ReLU" bottom: "${name}" top: "${name}" }`;
  const pool = (name: string, bottom: string, p = 'kernel_size: 2 stride: 2') =>
    `layer { name: "${name}" type: "Pooling" bottom: "${bottom}" top: "${name}" pooling_param { pool: MAX ${p} } }`;
  const boxes = (min: number, max: number, ratios: number[], step: number) =>
    `min_size: ${min} max_size: ${max} ${ratios.map((r) => `aspect_ratio: ${r}`).join(' ')} flip: true clip: false variance: 0.1 variance: 0.1 variance: 0.2 variance: 0.2 step: ${step} offset: 0.5`;
  const heads: [string, Head][] = [
    ['conv4_3_norm', { bottom: 'conv4_3_norm', priors: 4, priorBox: boxes(30, 60, [2], 8) }],
    ['fc7', { bottom: 'fc7', priors: 6, priorBox: boxes(60, 111, [2, 3], 16) }],
    ['conv6_2', { bottom: 'conv6_2', priors: 6, priorBox: boxes(111, 162, [2, 3], 32) }],
    ['conv7_2', { bottom: 'conv7_2', priors: 6, priorBox: boxes(162, 213, [2, 3], 64) }],
    ['conv8_2', { bottom: 'conv8_2', priors: 4, priorBox: boxes(213, 264, [2], 100) }],
    ['conv9_2', { bottom: 'conv9_2', priors: 4, priorBox: boxes(264, 315, [2], 300) }],
  ];
  const concat = (kind: string, axis: number) =>
    `layer { name: "mbox_${kind}" type: "Concat" ${heads.map(([n]) => `bottom: "${n}_mbox_${kind}${kind === 'priorbox' ? '' : '_flat'}"`).join(' ')} top: "mbox_${kind}" concat_param { axis: ${axis} } }`;
  return `name: "VGG_VOC0712_SSD_300x300_deploy_tiny"
input: "data"
input_shape { dim: 1 dim: 3 dim: 300 dim: 300 }
${conv('conv1_1', 'data', 'pad: 1 kernel_size: 3')}
${pool('pool1', 'conv1_1')}
${conv('conv2_1', 'pool1', 'pad: 1 kernel_size: 3')}
${pool('pool2', 'conv2_1')}
${conv('conv3_1', 'pool2', 'pad: 1 kernel_size: 3')}
${pool('pool3', 'conv3_1')}
${conv('conv4_3', 'pool3', 'pad: 1 kernel_size: 3')}
layer { name: "conv4_3_norm" type: "Normalize" bottom: "conv4_3" top: "conv4_3_norm" norm_param { across_spatial: false scale_filler { type: "constant" value: 20 } channel_shared: false } }
${pool('pool4', 'conv4_3')}
${conv('conv5_3', 'pool4', 'pad: 1 kernel_size: 3')}
${pool('pool5', 'conv5_3', 'kernel_size: 3 stride: 1 pad: 1')}
${conv('fc6', 'pool5', 'pad: 6 kernel_size: 3 dilation: 6')}
${conv('fc7', 'fc6', 'kernel_size: 1')}
${conv('conv6_1', 'fc7', 'pad: 0 kernel_size: 1 stride: 1')}
${conv('conv6_2', 'conv6_1', 'pad: 1 kernel_size: 3 stride: 2')}
${conv('conv7_1', 'conv6_2', 'pad: 0 kernel_size: 1 stride: 1')}
${conv('conv7_2', 'conv7_1', 'pad: 1 kernel_size: 3 stride: 2')}
${conv('conv8_1', 'conv7_2', 'pad: 0 kernel_size: 1 stride: 1')}
${conv('conv8_2', 'conv8_1', 'pad: 0 kernel_size: 3 stride: 1')}
${conv('conv9_1', 'conv8_2', 'pad: 0 kernel_size: 1 stride: 1')}
${conv('conv9_2', 'conv9_1', 'pad: 0 kernel_size: 3 stride: 1')}
${heads.map(([n, h]) => head(n, h, 1, VOC_CLASSES)).join('\n')}
${concat('loc', 1)}
${concat('conf', 1)}
${concat('priorbox', 2)}
layer { name: "mbox_conf_reshape" type: "Reshape" bottom: "mbox_conf" top: "mbox_conf_reshape" reshape_param { shape { dim: 0 dim: -1 dim: ${VOC_CLASSES} } } }
layer { name: "mbox_conf_softmax" type: "Softmax" bottom: "mbox_conf_reshape" top: "mbox_conf_softmax" softmax_param { axis: 2 } }
layer { name: "mbox_conf_flatten" type: "Flatten" bottom: "mbox_conf_softmax" top: "mbox_conf_flatten" flatten_param { axis: 1 } }
layer {
  name: "detection_out" type: "DetectionOutput"
  bottom: "mbox_loc" bottom: "mbox_conf_flatten" bottom: "mbox_priorbox" top: "detection_out"
  include { phase: TEST }
  detection_output_param {
    num_classes: ${VOC_CLASSES} share_location: true background_label_id: 0
    nms_param { nms_threshold: 0.45 top_k: 400 }
    code_type: CENTER_SIZE keep_top_k: 200 confidence_threshold: 0.06
  }
}
`;
}

const CASES: { name: string; detection: string; locClasses?: number }[] = [
  {
    name: 'CENTER_SIZE, shared locations (VGG-SSD deploy settings)',
    detection:
      'share_location: true background_label_id: 0 nms_param { nms_threshold: 0.45 top_k: 100 } code_type: CENTER_SIZE keep_top_k: 40 confidence_threshold: 0.27',
  },
  {
    name: 'CORNER, keep_top_k cutting across classes',
    detection:
      'share_location: true background_label_id: 0 nms_param { nms_threshold: 0.5 top_k: 60 } code_type: CORNER keep_top_k: 12 confidence_threshold: 0.26',
  },
  {
    name: 'CORNER, per-class locations, last class as background, no top_k',
    detection:
      'share_location: false background_label_id: 3 nms_param { nms_threshold: 0.6 } code_type: CORNER keep_top_k: 100 confidence_threshold: 0.28',
    locClasses: CLASSES,
  },
  {
    name: 'per-class locations with a background class and the default threshold',
    detection:
      'share_location: false background_label_id: 2 nms_param { nms_threshold: 0.3 top_k: 20 } code_type: CENTER_SIZE keep_top_k: 30',
    locClasses: CLASSES,
  },
];

/** Rows by image, label, then descending score. */
function sortedRows(data: Float32Array): number[][] {
  const rows = Array.from({ length: data.length / 7 }, (_, r) => Array.from(data.subarray(r * 7, r * 7 + 7)));
  return rows.sort(
    (a, b) => (a[0] as number) - (b[0] as number) || (a[1] as number) - (b[1] as number) || (b[2] as number) - (a[2] as number),
  );
}

/** Runs the prototxt with seeded weights in OpenCV and tsge; the same detections, boxes and scores within 1e-4. */
async function compareWithOpenCv(prototxt: Uint8Array, dims: number[]): Promise<number> {
  const caffemodel = await randomCaffemodel(prototxt, 23);
  const data = randomInput(
    dims.reduce((a, b) => a * b, 1),
    7,
  );
  const expected = await runOpenCvCaffe(prototxt, caffemodel, dims, data);
  const actual = (await runTsge(prototxt, caffemodel, 'data', dims, data, 'ssd.prototxt')).detection_out;
  if (!actual) throw new Error('no detection_out output');
  const rows = expected.data.length / 7;
  expect(rows, 'OpenCV finds some detections, or the case tests nothing').toBeGreaterThan(3);
  expect(actual.dims).toEqual([1, 1, rows, 7]);
  // Caffe lists an image's rows by label then score; OpenCV, after a keep_top_k cut, by score alone
  const got = sortedRows(actual.data);
  const want = sortedRows(expected.data);
  want.forEach((row, r) => {
    const mine = got[r] as number[];
    expect(mine.slice(0, 2), `row ${r}: image and label`).toEqual(row.slice(0, 2));
    for (let k = 2; k < 7; k++)
      expect(Math.abs((mine[k] as number) - (row[k] as number)), `row ${r} column ${k}: ${mine} vs ${row}`).toBeLessThan(1e-4);
  });
  return rows;
}

describe('Caffe SSD DetectionOutput matches OpenCV', () => {
  for (const c of CASES) {
    it(c.name, async () => {
      await compareWithOpenCv(bytes(ssdPrototxt(c.detection, c.locClasses)), [1, 3, 32, 32]);
    }, 120_000);
  }
  it("VGG-SSD 300's deploy layout (8732 priors, 21 classes, keep_top_k 200)", async () => {
    expect(await compareWithOpenCv(bytes(vggSsd300Prototxt()), [1, 3, 300, 300])).toBe(200);
  }, 300_000);
});
