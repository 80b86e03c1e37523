import type { AttrValue, Graph, HostTensor, OpRegistry, Value } from '@tsge/metadef';
import { GraphBuilder, KOp, UNKNOWN_RANK_SHAPE, attr, createKernelRegistryOf, createTensor, decodeKernelDescription } from '@tsge/metadef';
import { interpretGraph, jsKernelLibrary } from '@tsge/kernels-js';
import { createDefaultOpRegistry } from '@tsge/ops';
import { describe, expect, it } from 'vitest';
import { PassManager } from '../../pass-manager.js';
import { randomFloats } from '../../test-graphs.js';
import { autoFusionPass } from './auto-fusion.js';

const ops: OpRegistry = createDefaultOpRegistry();
const kernels = createKernelRegistryOf([jsKernelLibrary]);

/** Runs auto-fusion; the fused graph (generated kernels on the interpreter) must match the unfused one on the reference kernels. */
function fuseAndCompare(graph: Graph, feeds: Record<string, HostTensor>, tolerance = 1e-6) {
  const expected = interpretGraph(graph, feeds, { kernels });
  const manager = new PassManager({ ops, target: 'js', level: 3 });
  manager.run(graph, [autoFusionPass], 'test');
  expect(manager.diagnostics).toEqual([]);
  const actual = interpretGraph(graph, feeds, { kernels });
  for (const [i, value] of expected.entries()) {
    const e = value as HostTensor;
    const a = actual[i] as HostTensor;
    expect(a.dims).toEqual(e.dims);
    const ed = e.data as Float32Array;
    const ad = a.data as Float32Array;
    for (let k = 0; k < ed.length; k++) {
      const ev = ed[k] as number;
      const av = ad[k] as number;
      if (Number.isNaN(ev)) expect(av).toBeNaN();
      else expect(Math.abs(av - ev), `output ${i} element ${k}`).toBeLessThanOrEqual(tolerance * Math.max(1, Math.abs(ev)));
    }
  }
  const fused = graph.nodes.filter((n) => n.type === 'FusedElementwise');
  return {
    fused,
    types: graph.nodes.map((n) => n.type).filter((t) => t !== 'Data' && t !== 'NetOutput' && t !== 'Const'),
    counters: manager.counters,
  };
}

const tensor = (dims: number[], seed: number, scale = 1) =>
  createTensor(
    'float32',
    dims,
    randomFloats(
      dims.reduce((a, b) => a * b, 1),
      seed,
    ).map((v) => v * scale),
  );

describe('auto-fusion', () => {
  it('fuses a broadcast chain into one generated kernel (x + x·s, hard-swish written out)', () => {
    const b = new GraphBuilder('chain', { ops });
    const x = b.input('x', 'float32', [1, 4, 5, 6]);
    const s = b.input('s', 'float32', [1, 4, 1, 1]);
    const gated = b.op('Add', [x, b.op('Mul', [x, s], { name: 'gate' })], { name: 'residual' });
    const three = b.constant('three', createTensor('float32', [], Float32Array.of(3)));
    const clip = b.op(
      'Clip',
      [
        b.op('Add', [gated, three], { name: 'add3' }),
        b.constant('lo', createTensor('float32', [], Float32Array.of(0))),
        b.constant('hi', createTensor('float32', [], Float32Array.of(6))),
      ],
      { name: 'clip' },
    );
    const y = b.op(
      'Div',
      [b.op('Mul', [gated, clip], { name: 'mul' }), b.constant('six', createTensor('float32', [], Float32Array.of(6)))],
      { name: 'div' },
    );
    b.output(y, 'y');
    const r = fuseAndCompare(b.build(), { x: tensor([1, 4, 5, 6], 1, 5), s: tensor([1, 4, 1, 1], 2) });
    expect(r.types).toEqual(['FusedElementwise']);
    const node = r.fused[0];
    expect(node?.opDesc.attrs.get('fused_nodes')).toEqual({ kind: 'strings', value: ['gate', 'residual', 'add3', 'clip', 'mul', 'div'] });
    const words = node?.opDesc.attrs.get('description');
    const d = decodeKernelDescription(words?.kind === 'ints' ? words.value : [], 'test');
    // dims collapse to [channels, rows·cols]; s is read once per channel (inner stride 0)
    expect(d.shape).toEqual([4, 30]);
    expect(d.inputs.map((i) => i.strides)).toEqual([
      [30, 1],
      [1, 0],
    ]);
  });

  it('fuses x · Sigmoid(alpha · x) (SiLU/Swish as exporters write it) into one kernel', () => {
    for (const alpha of [1, 1.5]) {
      const b = new GraphBuilder('swish', { ops });
      const x = b.input('x', 'float32', [2, 3]);
      const scaled = b.op('Mul', [b.constant('alpha', createTensor('float32', [1], Float32Array.of(alpha))), x], { name: 'scale' });
      b.output(b.op('Mul', [b.op('Sigmoid', [scaled], { name: 'sig' }), x], { name: 'mul' }), 'y');
      const r = fuseAndCompare(b.build(), { x: tensor([2, 3], 5, 4) });
      expect(r.types).toEqual(['FusedElementwise']);
      const words = r.fused[0]?.opDesc.attrs.get('description');
      const d = decodeKernelDescription(words?.kind === 'ints' ? words.value : [], 'swish');
      expect(d.constants).toEqual([alpha]);
      expect(d.instructions.map((i) => i.op)).toEqual([KOp.mul, KOp.sigmoid, KOp.mul]);
    }
  });

  it('leaves a producer with a consumer outside the group and single ops alone', () => {
    const b = new GraphBuilder('branch', { ops });
    const x = b.input('x', 'float32', [2, 3]);
    const e = b.op('Exp', [x], { name: 'exp' });
    const r1 = b.op('Relu', [b.op('Neg', [e], { name: 'neg' })], { name: 'relu' });
    b.output(r1, 'a');
    b.output(e, 'b');
    const r = fuseAndCompare(b.build(), { x: tensor([2, 3], 3) });
    // exp feeds a graph output: the group is neg+relu, exp stays
    expect(r.types.sort()).toEqual(['Exp', 'FusedElementwise']);
  });

  it('fuses an inference BatchNormalization as x·a + b: into a Conv epilogue after its activation, or a group', () => {
    const b = new GraphBuilder('bn', { ops });
    const x = b.input('x', 'float32', [1, 3, 6, 5]);
    const stats = (name: string, c: number, seed: number, positive = false) =>
      b.constant(
        name,
        createTensor(
          'float32',
          [c],
          randomFloats(c, seed).map((v) => (positive ? Math.abs(v) + 0.1 : v)),
        ),
      );
    const bn = (input: Value, c: number, name: string, seed: number) =>
      b.op(
        'BatchNormalization',
        [
          input,
          stats(`${name}_s`, c, seed),
          stats(`${name}_b`, c, seed + 1),
          stats(`${name}_m`, c, seed + 2),
          stats(`${name}_v`, c, seed + 3, true),
        ],
        {
          name,
          attrs: { epsilon: attr.float(1e-3) },
        },
      );
    // PP-OCR's Conv, HardSwish, affine: the activation keeps the BN from folding into the weights
    const conv = b.op('Conv', [x, b.constant('w', tensor([4, 3, 3, 3], 5)), b.constant('cb', tensor([4], 6))], {
      name: 'conv',
      attrs: { pads: attr.ints([1, 1, 1, 1]) },
    });
    b.output(bn(b.op('HardSwish', [conv], { name: 'hswish' }), 4, 'bn1', 10), 'y');
    // a BN on a graph input then Relu: one FusedElementwise
    b.output(b.op('Relu', [bn(x, 3, 'bn2', 20)], { name: 'relu' }), 'z');
    const r = fuseAndCompare(b.build(), { x: tensor([1, 3, 6, 5], 7, 3) }, 1e-5);
    expect(r.types.sort()).toEqual(['FusedConv', 'FusedElementwise']);
    expect(r.counters['auto-fusion batch norms as affine']).toBe(2);
  });

  it('fuses a chain on dynamic dims into a run-time-sized description that runs on several shapes', () => {
    const build = () => {
      const b = new GraphBuilder('dynamic', { ops });
      const x = b.input('x', 'float32', ['n', 3]);
      const k = b.constant('k', createTensor('float32', [3], Float32Array.from([0.5, -2, 3])));
      b.output(b.op('Relu', [b.op('Mul', [b.op('Neg', [x], { name: 'neg' }), k], { name: 'mul' })], { name: 'relu' }), 'y');
      return b.build();
    };
    for (const n of [1, 5]) {
      const graph = build();
      fuseAndCompare(graph, { x: tensor([n, 3], n) });
      const fused = graph.nodes.find((node) => node.type === 'FusedElementwise');
      const shape = fused?.opDesc.attrs.get('shape');
      // n is RUNTIME_DIM (0) in the node's shape and the description; x has run-time size, k static strides
      expect(shape?.kind === 'ints' ? shape.value : undefined).toEqual([0, 3]);
      const words = fused?.opDesc.attrs.get('description');
      const d = decodeKernelDescription(words?.kind === 'ints' ? words.value : [], 'dynamic', { runtimeSized: true });
      expect(d.shape).toEqual([0, 3]);
      expect(d.inputs.map((i) => i.size)).toEqual([0, 3]);
      expect(d.inputs[1]?.strides).toEqual([0, 1]);
    }
  });

  it('fuses dynamic inputs that broadcast against each other, the output dims taken from them at each run', () => {
    const build = () => {
      const b = new GraphBuilder('dynamic-broadcast', { ops });
      const x = b.input('x', 'float32', ['n', 'c']);
      const s = b.input('s', 'float32', ['m', 1]);
      const k = b.constant('k', createTensor('float32', [1, 1, 1], Float32Array.from([0.5])));
      b.output(b.op('Relu', [b.op('Add', [b.op('Mul', [x, s], { name: 'mul' }), k], { name: 'add' })], { name: 'relu' }), 'y');
      return b.build();
    };
    // s per row of x, and s broadcast over x's rows too
    for (const [n, c, m] of [
      [4, 5, 4],
      [3, 9, 1],
    ] as const) {
      const graph = build();
      const { fused } = fuseAndCompare(graph, { x: tensor([n, c], n), s: tensor([m, 1], c) });
      expect(fused).toHaveLength(1);
      const shape = fused[0]?.opDesc.attrs.get('shape');
      // the constant makes the output rank 3: its first dim is 1, the others the inputs'
      expect(shape?.kind === 'ints' ? shape.value : undefined).toEqual([1, 0, 0]);
    }
  });

  it('keeps a chain of unknown rank unfused', () => {
    const b = new GraphBuilder('unknown-rank', { ops });
    const x = b.input('x', 'float32', UNKNOWN_RANK_SHAPE);
    b.output(b.op('Relu', [b.op('Neg', [x], { name: 'neg' })], { name: 'relu' }), 'y');
    const manager = new PassManager({ ops, target: 'js', level: 3 });
    const graph = b.build();
    manager.run(graph, [autoFusionPass], 'test');
    expect(graph.nodes.some((n) => n.type === 'FusedElementwise')).toBe(false);
  });

  // random DAGs of the ops the generator lowers, with broadcast operands of every rank
  const UNARY = [
    'Neg',
    'Abs',
    'Relu',
    'Sigmoid',
    'Tanh',
    'Exp',
    'Sqrt',
    'Reciprocal',
    'Floor',
    'Ceil',
    'Erf',
    'Identity',
    'HardSigmoid',
    'HardSwish',
    'LeakyRelu',
    'Swish',
    'Gelu',
  ];
  const BINARY = ['Add', 'Sub', 'Mul', 'Div', 'Max', 'Min', 'Pow', 'Sum', 'Mean'];
  it.each(Array.from({ length: 40 }, (_, i) => i + 1))('random graph %i matches the unfused graph', (seed) => {
    let state = seed * 7919;
    const rand = (n: number) => {
      state = (state * 1103515245 + 12345) % 2147483648;
      return state % n;
    };
    const rank = 1 + rand(4);
    const shape = Array.from({ length: rank }, () => 1 + rand(9));
    const b = new GraphBuilder(`random_${seed}`, { ops });
    const feeds: Record<string, HostTensor> = {};
    const values: Value[] = [];
    const operand = (i: number): Value => {
      // a broadcast operand: some dims 1, maybe lower rank
      const drop = rand(rank);
      const dims = shape.slice(drop).map((d) => (rand(3) === 0 ? 1 : d));
      if (rand(3) === 0) return b.constant(`c${seed}_${i}`, tensor(dims, seed * 100 + i));
      const name = `in${i}`;
      feeds[name] = tensor(dims, seed * 50 + i, 2);
      return b.input(name, 'float32', dims);
    };
    const x = b.input('x', 'float32', shape);
    feeds.x = tensor(shape, seed, 3);
    values.push(x);
    const count = 2 + rand(8);
    for (let i = 0; i < count; i++) {
      const pick = values[rand(values.length)] as Value;
      if (rand(2) === 0) {
        const type = UNARY[rand(UNARY.length)] as string;
        const attrs: Record<string, AttrValue> =
          type === 'LeakyRelu' ? { alpha: attr.float(0.1) } : type === 'Swish' ? { alpha: attr.float(1.5) } : {};
        // Sqrt and Reciprocal on |v| + 0.5 so both runs see the same finite values
        const arg =
          type === 'Sqrt' || type === 'Reciprocal'
            ? b.op(
                'Add',
                [b.op('Abs', [pick], { name: `abs${i}` }), b.constant(`half${i}`, createTensor('float32', [], Float32Array.of(0.5)))],
                { name: `pos${i}` },
              )
            : pick;
        values.push(b.op(type, [arg], { name: `u${i}`, attrs }));
      } else {
        const type = BINARY[rand(BINARY.length)] as string;
        const other = rand(2) === 0 ? (values[rand(values.length)] as Value) : operand(i);
        const arg = type === 'Pow' ? b.op('Abs', [pick], { name: `pabs${i}` }) : pick;
        values.push(b.op(type, rand(2) === 0 ? [arg, other] : [other, arg], { name: `b${i}` }));
      }
    }
    b.output(values[values.length - 1] as Value, 'y');
    if (rand(2) === 0 && values.length > 2) b.output(values[1 + rand(values.length - 2)] as Value, 'z');
    const r = fuseAndCompare(b.build(), feeds, 2e-6);
    for (const node of r.fused) {
      const words = node.opDesc.attrs.get('description');
      expect(() => decodeKernelDescription(words?.kind === 'ints' ? words.value : [], node.name)).not.toThrow();
    }
  });

  const lastAxis = { axes: attr.ints([-1]) };
  const kindOf = (node: { opDesc: { attrs: ReadonlyMap<string, AttrValue> } }) => {
    const words = node.opDesc.attrs.get('description');
    return decodeKernelDescription(words?.kind === 'ints' ? words.value : [], 'k').kind;
  };

  it('fuses a decomposed softmax over the last axis into one row-reduction kernel', () => {
    const b = new GraphBuilder('softmax', { ops });
    const x = b.input('x', 'float32', [2, 3, 13]);
    const shifted = b.op('Sub', [x, b.op('ReduceMax', [x], { name: 'max', attrs: lastAxis })], { name: 'shift' });
    const e = b.op('Exp', [shifted], { name: 'exp' });
    b.output(b.op('Div', [e, b.op('ReduceSum', [e], { name: 'sum', attrs: lastAxis })], { name: 'div' }), 'y');
    const r = fuseAndCompare(b.build(), { x: tensor([2, 3, 13], 11, 20) }, 1e-6);
    expect(r.types).toEqual(['FusedElementwise']);
    expect(kindOf(r.fused[0] as (typeof r.fused)[number])).toBe(2);
  });

  it('leaves reductions over other axes, reductions read outside the group, and a reduction as the sink unfused', () => {
    const b = new GraphBuilder('reductions', { ops });
    const x = b.input('x', 'float32', [4, 6]);
    // over axis 0: not a row reduction
    const col = b.op('ReduceMean', [x], { name: 'col', attrs: { axes: attr.ints([0]) } });
    b.output(b.op('Relu', [b.op('Sub', [x, col], { name: 'csub' })], { name: 'crelu' }), 'a');
    // the row max is a graph output too: it stays, the rest fuses without it
    const max = b.op('ReduceMax', [x], { name: 'max', attrs: lastAxis });
    b.output(max, 'm');
    b.output(b.op('Exp', [b.op('Sub', [x, max], { name: 'msub' })], { name: 'mexp' }), 'b');
    // a chain ending in a reduction: the reduction is no sink, its producers stay apart from it
    b.output(
      b.op('ReduceSum', [b.op('Neg', [b.op('Abs', [x], { name: 'abs' })], { name: 'neg' })], { name: 'rsum', attrs: lastAxis }),
      'c',
    );
    const r = fuseAndCompare(b.build(), { x: tensor([4, 6], 5) });
    expect(r.types.sort()).toEqual(['FusedElementwise', 'FusedElementwise', 'FusedElementwise', 'ReduceMax', 'ReduceMean', 'ReduceSum']);
    expect(r.fused.map(kindOf)).toEqual([1, 1, 1]);
  });

  it('reads a Transpose that keeps the last axis at the head of a group as a strided input, not a copy', () => {
    const b = new GraphBuilder('transpose-head', { ops });
    const x = b.input('x', 'float32', [2, 3, 4, 5]);
    const t = b.op('Transpose', [x], { name: 'heads', attrs: { perm: attr.ints([0, 2, 1, 3]) } });
    const s = b.input('s', 'float32', [1, 4, 1, 5]);
    b.output(b.op('Relu', [b.op('Add', [t, s], { name: 'add' })], { name: 'relu' }), 'y');
    // one that moves the last axis stays a Transpose
    const u = b.op('Transpose', [x], { name: 'moves', attrs: { perm: attr.ints([0, 1, 3, 2]) } });
    b.output(b.op('Neg', [b.op('Abs', [u], { name: 'abs' })], { name: 'neg' }), 'z');
    const r = fuseAndCompare(b.build(), { x: tensor([2, 3, 4, 5], 8), s: tensor([1, 4, 1, 5], 9) });
    expect(r.types.sort()).toEqual(['FusedElementwise', 'FusedElementwise', 'Transpose']);
    const fusedNodes = r.fused.map((n) => n.opDesc.attrs.get('fused_nodes')).map((a) => (a?.kind === 'strings' ? a.value : []));
    expect(fusedNodes).toContainEqual(['heads', 'add', 'relu']);
  });

  // random DAGs with row reductions (sum, mean, max over the last axis) among elementwise ops
  it.each(Array.from({ length: 30 }, (_, i) => i + 1))('random graph with row reductions %i matches the unfused graph', (seed) => {
    let state = seed * 104729;
    const rand = (n: number) => {
      state = (state * 1103515245 + 12345) % 2147483648;
      // the high bits: an LCG's low bits repeat with a short period
      return Math.floor(state / 65536) % n;
    };
    const shape = [...Array.from({ length: rand(3) }, () => 1 + rand(4)), 2 + rand(12)];
    const b = new GraphBuilder(`rows_${seed}`, { ops });
    const feeds: Record<string, HostTensor> = { x: tensor(shape, seed, 2) };
    const values: Value[] = [b.input('x', 'float32', shape)];
    const count = 3 + rand(8);
    for (let i = 0; i < count; i++) {
      const pick = values[rand(values.length)] as Value;
      const kind = rand(4);
      if (kind === 0) {
        const type = ['ReduceSum', 'ReduceMean', 'ReduceMax'][rand(3)] as string;
        values.push(b.op(type, [pick], { name: `r${i}`, attrs: lastAxis }));
      } else if (kind === 1) values.push(b.op(['Neg', 'Abs', 'Relu', 'Sigmoid'][rand(4)] as string, [pick], { name: `u${i}` }));
      else {
        const other = values[rand(values.length)] as Value;
        values.push(b.op(['Add', 'Sub', 'Mul', 'Max'][rand(4)] as string, rand(2) ? [pick, other] : [other, pick], { name: `b${i}` }));
      }
    }
    // the sink has the full shape: the last value plus x
    b.output(b.op('Add', [values[values.length - 1] as Value, values[0] as Value], { name: 'sink' }), 'y');
    const r = fuseAndCompare(b.build(), feeds, 2e-5);
    for (const node of r.fused) expect([1, 2]).toContain(kindOf(node));
  });
});
