// Generated row-reduction kernels (automatic fusion): decomposed softmax, LayerNorm and RMSNorm
// chains (ReduceMax/ReduceSum/ReduceMean along the last axis with the elementwise ops around them,
// as PyTorch exports them) become one tsge::FusedElementwise whose description reduces rows. Each
// against onnxruntime-node (the cpu device's SIMD kernel, one and two threads), against the same
// graph compiled without automatic fusion (on the js device's reference kernels, and the fused one
// on its interpreter), and a corrupted description is a coded error.
import { compileModel, loadModel, parseModel } from '@tsge/ge';
import { type HostTensor, KOp, KernelKind, type KernelDescription, encodeKernelDescription } from '@tsge/metadef';
import { readOm, writeOm } from '@tsge/om';
import { describe, expect, it } from 'vitest';
import { expectLikeOrt, lcg, randomFloats } from '../transformer/ort-compare.fixture.js';
import { type Attr, type NodeSpec, type Operand, onnxModel } from '../transformer/single-node-model.fixture.js';

const random = lcg(91);
const f32 = (name: string, dims: readonly number[]): Operand => ({ name, type: 'float32', dims });
const constant = (name: string, dims: number[], offset = 0): NodeSpec => ({
  opType: 'Constant',
  domain: '',
  inputs: [],
  outputs: [name],
  attrs: [{ name: 'value', tensor: { dims, data: (randomFloats('float32', dims, random).data as Float32Array).map((v) => v + offset) } }],
});
const scalar = (name: string, value: number): NodeSpec => ({
  opType: 'Constant',
  domain: '',
  inputs: [],
  outputs: [name],
  attrs: [{ name: 'value', tensor: { dims: [], data: Float32Array.of(value) } }],
});
const op = (opType: string, inputs: string[], outputs: string[], attrs: Attr[] = []): NodeSpec => ({
  opType,
  domain: '',
  inputs,
  outputs,
  attrs,
});
const lastAxis: Attr = { name: 'axes', ints: [-1] };

/** Softmax over the last axis as exported decomposed: max, x − max, exp, sum (axes as an input, opset 13+), divide. */
const softmax = (x: string, y: string): NodeSpec[] => [
  op('ReduceMax', [x], [`${y}_max`], [lastAxis]),
  op('Sub', [x, `${y}_max`], [`${y}_shift`]),
  op('Exp', [`${y}_shift`], [`${y}_exp`]),
  { opType: 'Constant', domain: '', inputs: [], outputs: [`${y}_axes`], attrs: [{ name: 'value_ints', ints: [-1] }] },
  op('ReduceSum', [`${y}_exp`, `${y}_axes`], [`${y}_sum`]),
  op('Div', [`${y}_exp`, `${y}_sum`], [y]),
];

/** LayerNorm as PyTorch exports it: ReduceMean, Sub, Pow 2, ReduceMean, Add ε, Sqrt, Div, Mul γ, Add β. */
const layerNorm = (x: string, y: string, n: number): NodeSpec[] => [
  op('ReduceMean', [x], [`${y}_mean`], [lastAxis]),
  op('Sub', [x, `${y}_mean`], [`${y}_d`]),
  scalar(`${y}_two`, 2),
  op('Pow', [`${y}_d`, `${y}_two`], [`${y}_sq`]),
  op('ReduceMean', [`${y}_sq`], [`${y}_var`], [lastAxis]),
  scalar(`${y}_eps`, 1e-5),
  op('Add', [`${y}_var`, `${y}_eps`], [`${y}_ve`]),
  op('Sqrt', [`${y}_ve`], [`${y}_std`]),
  op('Div', [`${y}_d`, `${y}_std`], [`${y}_n`]),
  constant(`${y}_gamma`, [n], 1),
  op('Mul', [`${y}_n`, `${y}_gamma`], [`${y}_g`]),
  constant(`${y}_beta`, [n]),
  op('Add', [`${y}_g`, `${y}_beta`], [y]),
];

/** RMSNorm (T5/LLaMA): x · 1/sqrt(mean(x²) + ε) · γ. */
const rmsNorm = (x: string, y: string, n: number): NodeSpec[] => [
  op('Mul', [x, x], [`${y}_sq`]),
  op('ReduceMean', [`${y}_sq`], [`${y}_ms`], [lastAxis]),
  scalar(`${y}_eps`, 1e-6),
  op('Add', [`${y}_ms`, `${y}_eps`], [`${y}_mse`]),
  op('Sqrt', [`${y}_mse`], [`${y}_rms`]),
  op('Reciprocal', [`${y}_rms`], [`${y}_inv`]),
  op('Mul', [x, `${y}_inv`], [`${y}_n`]),
  constant(`${y}_gamma`, [n], 1),
  op('Mul', [`${y}_n`, `${y}_gamma`], [y]),
];

interface Case {
  readonly name: string;
  readonly nodes: NodeSpec[];
  readonly inputs: Operand[];
  readonly output: Operand;
  readonly opset: number;
  /** Row reductions the generated kernel holds. */
  readonly reductions: number;
  /** Input values scaled (large logits test the max subtraction). */
  readonly scale?: number;
}

// the hand-written LayerNorm/RMSNorm patterns would take these chains first
const withoutPatterns = { optimizationSwitch: { 'layer-norm': false, 'rms-norm': false } };

const cases: Case[] = [
  {
    // rows of 37: nine f32x4 steps and a tail of one; large logits
    name: 'softmax over rows of 37',
    nodes: softmax('x', 'y'),
    inputs: [f32('x', [2, 5, 37])],
    output: f32('y', [2, 5, 37]),
    opset: 17,
    reductions: 2,
    scale: 40,
  },
  {
    name: 'softmax of scaled scores plus a mask broadcast over rows',
    nodes: [scalar('s', 0.125), op('Mul', ['x', 's'], ['xs']), op('Add', ['xs', 'mask'], ['z']), ...softmax('z', 'y')],
    inputs: [f32('x', [1, 4, 9, 64]), f32('mask', [1, 1, 1, 64])],
    output: f32('y', [1, 4, 9, 64]),
    opset: 17,
    reductions: 2,
    scale: 8,
  },
  {
    // [B, L, H, D] to [B, H, L, D] plus a bias in that layout (so the Transpose is not sunk below the
    // chain): the Transpose is read as a strided input of the kernel
    name: 'softmax of transposed heads plus a bias',
    nodes: [op('Transpose', ['x'], ['t'], [{ name: 'perm', ints: [0, 2, 1, 3] }]), op('Add', ['t', 'r'], ['a']), ...softmax('a', 'y')],
    inputs: [f32('x', [2, 7, 3, 21]), f32('r', [2, 3, 7, 21])],
    output: f32('y', [2, 3, 7, 21]),
    opset: 17,
    reductions: 2,
    scale: 5,
  },
  {
    name: 'LayerNorm (PyTorch export) over rows of 50',
    nodes: layerNorm('x', 'y', 50),
    inputs: [f32('x', [3, 7, 50])],
    output: f32('y', [3, 7, 50]),
    opset: 17,
    reductions: 2,
  },
  {
    // the residual Add feeds only the norm: it joins the kernel
    name: 'residual Add + LayerNorm over rows of 96',
    nodes: [op('Add', ['x', 'r'], ['h']), ...layerNorm('h', 'y', 96)],
    inputs: [f32('x', [1, 33, 96]), f32('r', [1, 33, 96])],
    output: f32('y', [1, 33, 96]),
    opset: 13,
    reductions: 2,
    scale: 3,
  },
  {
    name: 'RMSNorm over rows of 70',
    nodes: rmsNorm('x', 'y', 70),
    inputs: [f32('x', [4, 70])],
    output: f32('y', [4, 70]),
    opset: 17,
    reductions: 1,
  },
];

const feedsOf = (c: Case): Record<string, HostTensor> =>
  Object.fromEntries(
    c.inputs.map((i) => {
      const t = randomFloats('float32', i.dims as number[], random);
      (t.data as Float32Array).forEach((v, j, a) => {
        a[j] = v * (c.scale ?? 1);
      });
      return [i.name, t];
    }),
  );

async function run(om: Uint8Array, feeds: Record<string, HostTensor>, device: string, threads = 1): Promise<Float32Array> {
  const model = await loadModel(om, { threads, device });
  try {
    return ((await model.run(feeds)).y as HostTensor).data as Float32Array;
  } finally {
    await model.release();
  }
}

const worst = (a: Float32Array, b: Float32Array) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - (b[i] as number))), 0);

describe('generated row-reduction kernels', () => {
  for (const c of cases)
    it(c.name, { timeout: 60_000 }, async () => {
      const bytes = onnxModel(c.nodes, c.inputs, [c.output], c.opset);
      const graph = () => parseModel(bytes, { fileName: 'rows.onnx' });
      const fused = await compileModel(await graph(), withoutPatterns);
      const model = readOm(fused.om).model;
      const nodes = model?.graph.nodes ?? [];
      // the whole chain is one generated kernel
      expect(nodes.filter((n) => !['Data', 'NetOutput', 'Const'].includes(n.type)).map((n) => n.type)).toEqual(['FusedElementwise']);
      const d = model?.kernelDescriptions?.[0] as KernelDescription;
      expect(d.kind).toBe(KernelKind.rowReduction);
      expect(d.instructions.filter((i) => i.op === KOp.rowSum || i.op === KOp.rowMax)).toHaveLength(c.reductions);
      expect(d.shape.at(-1)).toBe(c.output.dims.at(-1));
      for (const threads of [1, 2])
        await expectLikeOrt({
          label: `${c.name} t${threads}`,
          bytes,
          feeds: feedsOf(c),
          outputs: ['y'],
          tolerance: 2e-5,
          threads,
          compile: withoutPatterns,
        });
      // the unfused graph on the reference kernels, the fused one on the interpreter and on SIMD
      const feeds = feedsOf(c);
      const plain = await compileModel(await graph(), { ...withoutPatterns, optimizationSwitch: { 'auto-fusion': false } });
      const reference = await run(plain.om, feeds, 'js');
      expect(worst(await run(fused.om, feeds, 'js'), reference)).toBeLessThanOrEqual(2e-5);
      expect(worst(await run(fused.om, feeds, 'cpu', 2), reference)).toBeLessThanOrEqual(2e-5);
    });

  it('the default compile fuses a LayerNorm the hand-written pattern does not match (Div by the std after Mul γ)', async () => {
    // γ applied before the division: not the LayerNormalization pattern's order
    const nodes = layerNorm('x', 'y', 40).map((n) =>
      n.outputs[0] === 'y_n'
        ? op('Div', ['y_g', 'y_std'], ['y_n'])
        : n.outputs[0] === 'y_g'
          ? op('Mul', ['y_d', 'y_gamma'], ['y_g'])
          : n.outputs[0] === 'y'
            ? op('Add', ['y_n', 'y_beta'], ['y'])
            : n,
    );
    const c: Case = { name: 'γ first', nodes, inputs: [f32('x', [6, 40])], output: f32('y', [6, 40]), opset: 17, reductions: 2 };
    const bytes = onnxModel(c.nodes, c.inputs, [c.output], c.opset);
    const model = readOm((await compileModel(await parseModel(bytes, { fileName: 'ln.onnx' }))).om).model;
    expect(model?.kernelDescriptions?.map((d) => d.kind)).toEqual([KernelKind.rowReduction]);
    await expectLikeOrt({ label: 'γ first', bytes, feeds: feedsOf(c), outputs: ['y'], tolerance: 2e-5 });
  });

  it('a corrupted row-reduction description is a coded error', async () => {
    const c = cases[0] as Case;
    const bytes = onnxModel(c.nodes, c.inputs, [c.output], c.opset);
    const model = readOm((await compileModel(await parseModel(bytes, { fileName: 'rows.onnx' }))).om).model as NonNullable<
      ReturnType<typeof readOm>['model']
    >;
    const d = model.kernelDescriptions?.[0] as KernelDescription;
    const rewrite = (change: (d: KernelDescription) => KernelDescription) =>
      writeOm({
        ...model,
        modelName: model.header.modelName,
        target: model.header.target,
        flags: model.header.flags,
        kernelDescriptions: [change(d)],
      });
    const codeOf = (om: Uint8Array) => readOm(om).diagnostics[0]?.code;
    // marked elementwise while it reduces rows
    expect(codeOf(rewrite((x) => ({ ...x, kind: KernelKind.elementwise })))).toBe('TSGE-E7104');
    // its reductions replaced by copies: a row-reduction kernel without a reduction
    const copies = d.instructions.map((i) => (i.op === KOp.rowSum || i.op === KOp.rowMax ? { ...i, op: KOp.copy } : i));
    expect(codeOf(rewrite((x) => ({ ...x, instructions: copies })))).toBe('TSGE-E7104');
    // a reduction whose operand is a later register
    const forward = d.instructions.map((i, j) => (i.op === KOp.rowMax ? { ...i, a: d.inputs.length + d.constants.length + j } : i));
    expect(codeOf(rewrite((x) => ({ ...x, instructions: forward })))).toBe('TSGE-E7101');
    // more reductions in sequence than the limit
    const first = d.inputs.length;
    const chain = Array.from({ length: 9 }, (_, j) => ({ op: KOp.rowSum, a: j === 0 ? 0 : first + j - 1, b: 0 }));
    const deep: KernelDescription = { ...d, constants: [], instructions: chain, output: first + chain.length - 1 };
    expect(encodeKernelDescription(deep).length).toBeGreaterThan(0);
    expect(codeOf(rewrite(() => deep))).toBe('TSGE-E7104');
  });
});
