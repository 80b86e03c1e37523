import { type AttrValue, type HostTensor, type KernelContextV1, attr, createAttrReader, createTensor } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { runKernelOnHost, nnKernels, applyActivation } from '@tsge/kernels-js/kernel-support';
import { hasWasmSimd } from './kernel-modules.js';
import { CONV_PLAN } from './conv-plan.js';
import { simdConvKernel, simdFusedConvKernel } from './simd-conv.js';
import { maxRelativeError, operand, runKernel, wasmMemory } from './simd-test-support.fixture.js';
import { runTile } from './simd-test-support.fixture.js';

const reference = nnKernels.find((k) => k.opType === 'Conv' && k.name === 'reference');

function seeded(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    return s / 0x7fffffff - 0.5;
  };
}

interface Case {
  name: string;
  x: number[];
  w: number[];
  bias: boolean;
  attrs: Record<string, AttrValue>;
  /** Run as tsge::FusedConv with this activation and its params. */
  activation?: [string, number[]];
}

const cases: Case[] = [
  { name: '3×3 pad 1', x: [1, 3, 9, 11], w: [8, 3, 3, 3], bias: true, attrs: { pads: attr.ints([1, 1, 1, 1]) } },
  {
    name: '3×3 stride 2',
    x: [2, 4, 10, 10],
    w: [6, 4, 3, 3],
    bias: true,
    attrs: { strides: attr.ints([2, 2]), pads: attr.ints([1, 0, 1, 0]) },
  },
  { name: '1×1 pointwise', x: [2, 5, 7, 6], w: [9, 5, 1, 1], bias: true, attrs: {} },
  { name: '1×1 no bias', x: [1, 16, 4, 4], w: [16, 16, 1, 1], bias: false, attrs: {} },
  { name: 'grouped', x: [1, 8, 6, 6], w: [8, 4, 3, 3], bias: true, attrs: { group: attr.int(2), pads: attr.ints([1, 1, 1, 1]) } },
  {
    name: 'dilated, SAME_UPPER',
    x: [1, 2, 12, 9],
    w: [4, 2, 3, 3],
    bias: false,
    attrs: { dilations: attr.ints([2, 2]), auto_pad: attr.string('SAME_UPPER') },
  },
  { name: '1-D', x: [1, 3, 20], w: [5, 3, 4], bias: true, attrs: { strides: attr.ints([3]) } },
  {
    name: 'depthwise 3×3 pad 1',
    x: [2, 4, 9, 13],
    w: [4, 1, 3, 3],
    bias: true,
    attrs: { group: attr.int(4), pads: attr.ints([1, 1, 1, 1]) },
  },
  {
    name: 'depthwise 5×5 stride 2',
    x: [1, 3, 11, 12],
    w: [3, 1, 5, 5],
    bias: false,
    attrs: { group: attr.int(3), strides: attr.ints([2, 2]), pads: attr.ints([2, 2, 2, 2]) },
  },
  {
    name: 'depthwise dilated, asymmetric pads',
    x: [1, 2, 10, 17],
    w: [2, 1, 3, 3],
    bias: true,
    attrs: { group: attr.int(2), dilations: attr.ints([2, 2]), pads: attr.ints([1, 2, 0, 1]) },
  },
  {
    name: 'depthwise narrow rows',
    x: [1, 2, 4, 3],
    w: [2, 1, 3, 3],
    bias: true,
    attrs: { group: attr.int(2), pads: attr.ints([1, 1, 1, 1]) },
  },
  { name: 'large 3×3 (many row tiles)', x: [1, 16, 40, 40], w: [32, 16, 3, 3], bias: true, attrs: { pads: attr.ints([1, 1, 1, 1]) } },
  { name: 'large pointwise (many channel tiles)', x: [1, 64, 32, 32], w: [64, 64, 1, 1], bias: true, attrs: {} },
  { name: 'small-K pointwise over several column blocks', x: [1, 16, 40, 40], w: [13, 16, 1, 1], bias: true, attrs: {} },
  {
    name: 'pointwise 24→41 over 1089 positions (panel copy, remainder rows)',
    x: [1, 24, 33, 33],
    w: [41, 24, 1, 1],
    bias: true,
    attrs: {},
  },
  { name: 'grouped pointwise, batch 2', x: [2, 12, 9, 13], w: [10, 6, 1, 1], bias: true, attrs: { group: attr.int(2) } },
  { name: 'pointwise 64 input channels, no bias', x: [1, 64, 16, 20], w: [7, 64, 1, 1], bias: false, attrs: {} },
  {
    name: 'large depthwise (channel tiles)',
    x: [1, 64, 40, 40],
    w: [64, 1, 3, 3],
    bias: true,
    attrs: { group: attr.int(64), pads: attr.ints([1, 1, 1, 1]) },
  },
  { name: 'channel multiplier 2', x: [1, 2, 5, 5], w: [4, 1, 3, 3], bias: true, attrs: { group: attr.int(2) } },
  // K > 256 (accumulating K blocks), 21 output channels (row tail), stride 2 over wide rows (shuffles)
  {
    name: 'deep 3×3 stride 2, odd channels',
    x: [1, 40, 13, 41],
    w: [21, 40, 3, 3],
    bias: true,
    attrs: { strides: attr.ints([2, 2]), pads: attr.ints([1, 1, 1, 1]) },
  },
  // more than 128 output channels (several row blocks), 7×7 positions (panels across rows)
  { name: 'many channels on 7×7', x: [2, 300, 7, 7], w: [136, 300, 1, 1], bias: false, attrs: {} },
  { name: '1×1 stride 2', x: [1, 24, 14, 14], w: [40, 24, 1, 1], bias: true, attrs: { strides: attr.ints([2, 2]) } },
  // enough work (≥ 2 × 4M multiply-adds) for several tiles on both GEMM paths
  { name: 'tiled direct 3×3', x: [1, 32, 64, 64], w: [48, 32, 3, 3], bias: true, attrs: { pads: attr.ints([1, 1, 1, 1]) } },
  {
    name: 'tiled im2col 3×3 stride 2',
    x: [1, 32, 128, 128],
    w: [48, 32, 3, 3],
    bias: true,
    attrs: { strides: attr.ints([2, 2]), pads: attr.ints([1, 1, 1, 1]) },
  },
  // more than 64 output channels: stride 1 through im2col panels again
  { name: 'wide 3×3 with 72 channels', x: [1, 8, 12, 40], w: [72, 8, 3, 3], bias: true, attrs: { pads: attr.ints([1, 1, 1, 1]) } },
  // stride 1 without im2col: slab bands (several, as 64 channels × 200 columns fill the workspace)
  { name: 'direct 3×3, several slab bands', x: [1, 64, 20, 200], w: [8, 64, 3, 3], bias: true, attrs: { pads: attr.ints([1, 1, 1, 1]) } },
  {
    name: 'direct dilated, asymmetric pads, grouped, batch 2',
    x: [2, 6, 9, 37],
    w: [10, 3, 3, 2],
    bias: true,
    attrs: { group: attr.int(2), dilations: attr.ints([2, 3]), pads: attr.ints([2, 0, 1, 4]) },
  },
  // unrolled depthwise kernels: 5×5 stride 2 with asymmetric pads on a padded plane, 3×3 stride 1 on
  // a plane too large for the workspace (checked bounds path)
  {
    name: 'depthwise 5×5 stride 2 asymmetric pads',
    x: [1, 3, 13, 17],
    w: [3, 1, 5, 5],
    bias: true,
    attrs: { group: attr.int(3), strides: attr.ints([2, 2]), pads: attr.ints([2, 1, 0, 3]) },
  },
  {
    name: 'depthwise 3×3 strides 2×1',
    x: [1, 4, 15, 22],
    w: [4, 1, 3, 3],
    bias: true,
    attrs: { group: attr.int(4), strides: attr.ints([2, 1]), pads: attr.ints([1, 1, 1, 1]) },
  },
  {
    name: 'depthwise 5×5 strides 1×2',
    x: [1, 4, 15, 22],
    w: [4, 1, 5, 5],
    bias: false,
    attrs: { group: attr.int(4), strides: attr.ints([1, 2]), pads: attr.ints([2, 2, 2, 2]) },
  },
  // row tails of 1–3 outputs as vector steps on the padded plane (6, 7 and 5 output columns)
  {
    name: 'depthwise 3×3 on 6×6 planes',
    x: [1, 5, 6, 6],
    w: [5, 1, 3, 3],
    bias: true,
    attrs: { group: attr.int(5), pads: attr.ints([1, 1, 1, 1]) },
  },
  {
    name: 'depthwise 3×3 stride 2 to 7 columns',
    x: [1, 3, 13, 13],
    w: [3, 1, 3, 3],
    bias: true,
    attrs: { group: attr.int(3), strides: attr.ints([2, 2]), pads: attr.ints([1, 1, 1, 1]) },
  },
  {
    name: 'depthwise 5×5 stride 2 to 5 columns',
    x: [1, 3, 10, 10],
    w: [3, 1, 5, 5],
    bias: false,
    attrs: { group: attr.int(3), strides: attr.ints([2, 2]), pads: attr.ints([1, 2, 2, 1]) },
  },
  {
    name: 'depthwise 3×3 on a plane beyond the workspace',
    x: [1, 2, 600, 600],
    w: [2, 1, 3, 3],
    bias: false,
    attrs: { group: attr.int(2), pads: attr.ints([1, 1, 1, 1]) },
  },
  // tsge::FusedConv: clamps fused into the GEMM store, other activations after it, and depthwise
  {
    name: 'fused Relu',
    x: [1, 8, 10, 10],
    w: [12, 8, 3, 3],
    bias: true,
    attrs: { pads: attr.ints([1, 1, 1, 1]) },
    activation: ['Relu', []],
  },
  { name: 'fused Clip', x: [1, 8, 10, 10], w: [12, 8, 1, 1], bias: true, attrs: {}, activation: ['Clip', [-0.5, 0.75]] },
  { name: 'fused Sigmoid', x: [1, 8, 10, 20], w: [12, 8, 3, 3], bias: true, attrs: {}, activation: ['Sigmoid', []] },
  { name: 'fused HardSwish', x: [1, 8, 10, 10], w: [12, 8, 3, 3], bias: false, attrs: {}, activation: ['HardSwish', []] },
  {
    name: 'fused depthwise Relu',
    x: [1, 6, 9, 9],
    w: [6, 1, 3, 3],
    bias: true,
    attrs: { group: attr.int(6), pads: attr.ints([1, 1, 1, 1]) },
    activation: ['Relu', []],
  },
  ...rowBandCases(),
];

/**
 * Depthwise filters over short planes, where output rows run on the filter rows that reach the
 * plane: 3×3 and 5×5, row and column strides 1 and 2, pads 0–2 (asymmetric, and beyond the filter
 * so that whole windows lie in the padding), heights 1–6 and a tall one, widths with vector tails,
 * some with a fused activation; then the depthwise shapes of ppocr_cls and ppocr_rec.
 */
function rowBandCases(): Case[] {
  const pads = [
    [0, 0, 0, 0],
    [1, 1, 1, 1],
    [2, 2, 2, 2],
    [2, 1, 0, 2],
    [0, 2, 1, 0],
    [1, 0, 2, 1],
  ];
  const heights = [1, 2, 3, 4, 6, 29];
  const widths = [9, 13, 22, 7, 17, 30, 11];
  const activations: [string, number[]][] = [
    ['Relu', []],
    ['HardSwish', []],
  ];
  const out: Case[] = [];
  let i = 0;
  for (const k of [3, 5])
    for (const [sh, sw] of [
      [1, 1],
      [2, 2],
      [2, 1],
      [1, 2],
    ] as const)
      for (const h of heights) {
        // the next pads that leave at least one output row
        let p = pads[i % pads.length] as number[];
        for (let j = 1; h + (p[0] as number) + (p[2] as number) < k; j++) p = pads[(i + j) % pads.length] as number[];
        const w = widths[i % widths.length] as number;
        const activation = i % 3 === 2 ? activations[i % 2] : undefined;
        out.push({
          name: `depthwise ${k}×${k} strides ${sh}×${sw} pads ${p.join(',')} on ${h}×${w}${activation ? ` + ${activation[0]}` : ''}`,
          x: [1, 3, h, w],
          w: [3, 1, k, k],
          bias: i % 2 === 0,
          attrs: { group: attr.int(3), strides: attr.ints([sh, sw]), pads: attr.ints(p) },
          ...(activation ? { activation } : {}),
        });
        i++;
      }
  // pads of a whole filter: the first and last output rows see only padding (bias, then the activation)
  out.push({
    name: 'depthwise 3×3 with whole windows in the padding',
    x: [1, 2, 1, 10],
    w: [2, 1, 3, 3],
    bias: true,
    attrs: { group: attr.int(2), pads: attr.ints([3, 1, 4, 1]) },
    activation: ['Relu', []],
  });
  const shapes: [number, number, number, number, number, number][] = [
    // channels, H, W, K, row stride, pad
    [200, 2, 96, 5, 1, 2],
    [104, 3, 96, 5, 2, 2],
    [88, 3, 96, 5, 1, 2],
    [48, 3, 96, 5, 1, 2],
    [40, 3, 96, 5, 1, 2],
    [32, 6, 96, 5, 2, 2],
    [32, 6, 96, 3, 1, 1],
    [24, 12, 96, 3, 2, 1],
    [8, 24, 96, 3, 2, 1],
    [480, 3, 80, 5, 1, 2],
    [480, 6, 80, 5, 1, 2],
    [480, 6, 80, 5, 2, 2],
  ];
  for (const [c, h, w, k, sh, pad] of shapes)
    out.push({
      name: `ppocr depthwise [1,${c},${h},${w}] * ${k}×${k} strides ${sh}×1`,
      x: [1, c, h, w],
      w: [c, 1, k, k],
      bias: true,
      attrs: { group: attr.int(c), strides: attr.ints([sh, 1]), pads: attr.ints([pad, pad, pad, pad]) },
    });
  return out;
}

const LABELS = {
  alone: '',
  split: ' (tiles run out of order by a 4-thread pool)',
  compiled: ' (on the plan compiled for the 4-thread pool)',
  'compiled for 3': ' (on a plan compiled for 3 threads, split again for 4)',
} as const;

describe.skipIf(!hasWasmSimd())('wasm SIMD Conv', () => {
  for (const c of cases) {
    const kernel = c.activation ? simdFusedConvKernel(reference!) : simdConvKernel(reference!);
    for (const mode of ['alone', 'split', 'compiled', 'compiled for 3'] as const)
      it(`matches the reference kernel: ${c.name}${LABELS[mode]}`, () => {
        const split = mode !== 'alone';
        const rnd = seeded(c.x.reduce((a, b) => a * 7 + b, 1));
        const count = (d: number[]) => d.reduce((a, b) => a * b, 1);
        const xs = Float32Array.from({ length: count(c.x) }, rnd);
        const ws = Float32Array.from({ length: count(c.w) }, rnd);
        const bs = Float32Array.from({ length: c.w[0] as number }, rnd);
        const attrs = new Map<string, AttrValue>(Object.entries(c.attrs));
        const host = [
          createTensor('float32', c.x, xs),
          createTensor('float32', c.w, ws),
          ...(c.bias ? [createTensor('float32', [c.w[0] as number], bs)] : []),
        ];
        const expected = runKernelOnHost(reference!, host, { outputCount: 1, attrs })[0] as HostTensor;
        if (c.activation) {
          applyActivation(expected.data as Float32Array, c.activation[0], c.activation[1]);
          attrs.set('activation', attr.string(c.activation[0]));
          attrs.set('activation_params', attr.floats(c.activation[1]));
        }

        if (mode === 'compiled' || mode === 'compiled for 3') {
          // the plan the compiler records for these static shapes (for this pool's 4 threads, or another count)
          const inputs = host.map((t) => ({ dims: t.dims, type: t.type }));
          const threads = mode === 'compiled' ? 4 : 3;
          const planned = kernel.plan?.({ nodeName: 'conv', opType: kernel.opType, attrs: createAttrReader(attrs), inputs, threads });
          expect(planned?.map(([name]) => name)).toEqual([CONV_PLAN]);
          for (const [name, value] of planned ?? []) attrs.set(name, value);
        }
        const memory = wasmMemory(false, 128);
        let offset = 64;
        const place = (t: HostTensor): HostTensor => {
          const view = new Float32Array(memory.buffer, offset, t.data.length);
          view.set(t.data as Float32Array);
          offset += Math.ceil((t.data.length * 4) / 64) * 64 + 64;
          return { type: t.type, dims: t.dims, data: view };
        };
        const inputs = host.map(place);
        const yView = new Float32Array(memory.buffer, offset, expected.data.length).fill(Number.NaN);
        let outDims: readonly number[] = [];
        const ctx: KernelContextV1 = {
          nodeName: 'conv',
          opType: 'Conv',
          attrs: createAttrReader(attrs),
          inputCount: inputs.length,
          outputCount: 1,
          opsetVersion: 22,
          memory,
          ...(split
            ? {
                parallel: {
                  threads: 4,
                  run: (name: string, tiles: readonly (readonly number[])[]) => {
                    for (const t of [...tiles].reverse()) runTile(memory, name, t);
                  },
                },
              }
            : {}),
          input: (i) => inputs[i],
          tensor: (i) => inputs[i],
          output: (_i, dims) => {
            outDims = dims;
            return { type: 'float32', dims: [...dims], data: yView };
          },
          setOutput: () => {},
          runSubgraph: () => [],
        };
        kernel.compute(ctx);
        expect(outDims).toEqual(expected.dims);
        const e = expected.data as Float32Array;
        let worst = 0;
        for (let i = 0; i < e.length; i++) worst = Math.max(worst, Math.abs((yView[i] as number) - (e[i] as number)));
        expect(worst).toBeLessThan(1e-4);
      });
  }
});

describe.skipIf(!hasWasmSimd())('wasm SIMD Conv plan cache', () => {
  it('reuses a node plan on later runs with new values, and replans when tensors move', () => {
    const memory = wasmMemory(false, 64);
    const attrs = { pads: attr.ints([1, 1, 1, 1]) };
    const kernel = simdConvKernel(reference!);
    // one context for every run, as executors keep a node's context: only its tensors change
    let inputs: HostTensor[] = [];
    let output: HostTensor | undefined;
    let outputAt = 0;
    const ctx: KernelContextV1 = {
      nodeName: 'conv',
      opType: 'Conv',
      attrs: createAttrReader(new Map(Object.entries(attrs))),
      inputCount: 2,
      outputCount: 1,
      opsetVersion: 22,
      memory,
      input: (i) => inputs[i],
      tensor: (i) => inputs[i],
      output: (_i, dims) => {
        const count = dims.reduce((p, d) => p * d, 1);
        output = { type: 'float32', dims: [...dims], data: new Float32Array(memory.buffer, outputAt, count).fill(Number.NaN) };
        return output;
      },
      setOutput: () => {},
      runSubgraph: () => [],
    };
    const check = (seed: number, skew: number, dims: [number[], number[]]): void => {
      const x = operand(dims[0], seed);
      const w = operand(dims[1], seed + 1);
      const expected = runKernel(reference!, { opType: 'Conv', inputs: [x, w], attrs });
      let offset = 64 + skew * 4;
      inputs = [x, w].map((t) => {
        const data = new Float32Array(memory.buffer, offset, t.values.length);
        data.set(t.values);
        offset += Math.ceil((t.values.length * 4) / 64) * 64 + skew * 4;
        return { type: 'float32', dims: [...t.dims], data };
      });
      outputAt = offset;
      kernel.compute(ctx);
      const actual = { dims: output?.dims, values: Float32Array.from(output?.data as Float32Array) };
      expect(actual.dims).toEqual(expected.dims);
      expect(maxRelativeError(actual.values, expected.values, 1)).toBeLessThan(1e-4);
    };
    check(1, 0, [
      [1, 8, 20, 24],
      [16, 8, 3, 3],
    ]);
    check(2, 0, [
      [1, 8, 20, 24],
      [16, 8, 3, 3],
    ]); // same context, same offsets: cached plan, new values
    check(3, 1, [
      [1, 8, 20, 24],
      [16, 8, 3, 3],
    ]); // moved tensors: new plan
    check(4, 0, [
      [1, 8, 12, 30],
      [16, 8, 3, 3],
    ]); // other input dims: new plan
  });
});

describe.skipIf(!hasWasmSimd())('wasm SIMD Conv compiled plans', () => {
  const x = operand([1, 8, 12, 16], 5);
  const w3 = operand([16, 8, 3, 3], 6);
  const pads = attr.ints([1, 1, 1, 1]);
  const kernel = simdConvKernel(reference!);
  const plan = (xDims: readonly number[], wDims: readonly number[], attrs: Record<string, AttrValue>): number[] => {
    const planned = kernel.plan?.({
      nodeName: 'conv',
      opType: 'Conv',
      attrs: createAttrReader(new Map(Object.entries(attrs))),
      inputs: [
        { dims: xDims, type: 'float32' },
        { dims: wDims, type: 'float32' },
      ],
      threads: 1,
    });
    return [...((planned?.[0]?.[1].value as number[]) ?? [])];
  };
  const run = (ints: readonly number[], w = w3, attrs: Record<string, AttrValue> = { pads }) =>
    runKernel(kernel, { opType: 'Conv', inputs: [x, w], attrs: { ...attrs, conv_plan: attr.ints(ints) }, memory: wasmMemory(false, 16) });

  it('records the path, slab and tiles the kernel runs', () => {
    // 16 output channels, stride 1: the direct path with a slab; head [version, path, threads, width, rows, tiles]
    const direct = plan(x.dims, w3.dims, { pads });
    expect(direct.slice(0, 3)).toEqual([1, 2, 1]);
    expect(direct[3]).toBe(18);
    expect(direct.slice(5)).toEqual([1, 0, 1, 0, 16, 0, 12]);
    expect(plan(x.dims, w3.dims, { pads, strides: attr.ints([2, 2]) })[1]).toBe(1); // im2col
    expect(plan(x.dims, [16, 8, 1, 1], {})[1]).toBe(6); // pointwise with few input channels: the input's panels from L1
    expect(plan([1, 96, 12, 10], [16, 96, 1, 1], {})[1]).toBe(3); // pointwise above 64 input channels: the input read in place
    expect(plan(x.dims, [8, 1, 3, 3], { group: attr.int(8), pads })[1]).toBe(4); // depthwise
    const expected = runKernel(reference!, { opType: 'Conv', inputs: [x, w3], attrs: { pads } });
    expect(maxRelativeError(run(direct).values, expected.values, 1)).toBeLessThan(1e-4);
  });

  const bad: [string, (direct: number[]) => number[], RegExp][] = [
    ['an unknown version', (p) => [9, ...p.slice(1)], /version/],
    ['a truncated tile list', (p) => p.slice(0, -1), /tiles need/],
    ['a pointwise path for a 3×3 convolution', (p) => [p[0] as number, 3, ...p.slice(2)], /pointwise plan/],
    ['a depthwise path for a dense convolution', (p) => [p[0] as number, 4, ...p.slice(2)], /depthwise plan/],
    ['a slab wider than the rows need', (p) => [...p.slice(0, 3), 40, ...p.slice(4)], /slab/],
    ['tiles past the output', (p) => [...p.slice(0, 5), 1, 0, 1, 0, 16, 0, 13], /outside/],
    ['overlapping tiles', (p) => [...p.slice(0, 5), 2, 0, 1, 0, 16, 0, 7, 0, 1, 0, 16, 6, 12], /overlap/],
    ['tiles leaving rows out', (p) => [...p.slice(0, 5), 1, 0, 1, 0, 16, 0, 11], /uncovered/],
  ];
  for (const [label, edit, reason] of bad)
    it(`rejects ${label} with TSGE-E7106`, () => {
      const ints = edit(plan(x.dims, w3.dims, { pads }));
      expect(() => run(ints)).toThrow(reason);
      try {
        run(ints);
      } catch (e) {
        expect((e as { code?: string }).code).toBe('TSGE-E7106');
      }
    });
});
