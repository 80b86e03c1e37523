import {
  type AttrMap,
  type HostTensor,
  type KernelContextV1,
  type RuntimeValue,
  type SequenceValue,
  attr,
  createTensor,
  readNumber,
} from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { inferOnValues, controlflowOps } from '@tsge/ops/kernel-support';
import { runKernelOnHost } from '../host/run-on-host.js';
import { controlflowKernels } from './index.js';

const f32 = (dims: number[], values: number[]): HostTensor => createTensor('float32', dims, Float32Array.from(values));
const i64 = (dims: number[], values: number[]): HostTensor => createTensor('int64', dims, BigInt64Array.from(values, BigInt));
const bool = (v: boolean): HostTensor => createTensor('bool', [], Uint8Array.of(v ? 1 : 0));
const values = (t: RuntimeValue | undefined): unknown[] => Array.from((t as HostTensor).data as ArrayLike<unknown>);
const seq = (items: HostTensor[]): SequenceValue => ({ kind: 'sequence', elementType: 'float32', items });

function run(
  opType: string,
  inputs: (RuntimeValue | undefined)[],
  attrs: Record<string, ReturnType<typeof attr.int>> = {},
  outputCount = 1,
  runSubgraph?: KernelContextV1['runSubgraph'],
): (RuntimeValue | undefined)[] {
  const kernel = controlflowKernels.find((k) => k.opType === opType);
  if (!kernel) throw new Error(`no kernel ${opType}`);
  return runKernelOnHost(kernel, inputs, {
    attrs: new Map(Object.entries(attrs)) as AttrMap,
    outputCount,
    ...(runSubgraph ? { runSubgraph } : {}),
  });
}

describe('If', () => {
  it('runs the branch the condition picks', () => {
    const calls: string[] = [];
    const sub: KernelContextV1['runSubgraph'] = (name) => {
      calls.push(name);
      return [f32([1], [name === 'then_branch' ? 1 : 2])];
    };
    const g = { then_branch: attr.graph('t'), else_branch: attr.graph('e') };
    expect(values(run('If', [bool(false)], g, 1, sub)[0])).toEqual([2]);
    expect(values(run('If', [bool(true)], g, 1, sub)[0])).toEqual([1]);
    expect(calls).toEqual(['else_branch', 'then_branch']);
  });
  it('merges branch shapes in inference', () => {
    const def = controlflowOps.find((d) => d.type === 'If');
    if (!def) throw new Error('no If');
    const out = inferOnValues(def, [{ dtype: 'bool', shape: [] }], {
      inferSubgraph: (name) => [{ dtype: 'float32', shape: name === 'then_branch' ? [2, 3] : [2, 4] }],
    });
    expect(out[0]).toEqual({ dtype: 'float32', shape: [2, -1] });
  });
});

describe('Loop', () => {
  it('carries a value and stacks scan outputs until M or cond stop it', () => {
    // body: acc' = acc + i; scan = acc'; cond' = acc' < 5
    const body: KernelContextV1['runSubgraph'] = (_name, inputs) => {
      const i = readNumber(inputs[0] as HostTensor, 0);
      const acc = readNumber(inputs[2] as HostTensor, 0) + i;
      return [bool(acc < 5), f32([], [acc]), f32([1], [acc])];
    };
    const out = run('Loop', [i64([], [10]), bool(true), f32([], [0])], { body: attr.graph('b') }, 2, body);
    expect(values(out[0])).toEqual([6]);
    expect((out[1] as HostTensor).dims).toEqual([4, 1]);
    expect(values(out[1])).toEqual([0, 1, 3, 6]);
    const capped = run('Loop', [i64([], [2]), undefined, f32([], [0])], { body: attr.graph('b') }, 2, body);
    expect(values(capped[0])).toEqual([1]);
    // without a cond input the body's cond output (false once acc >= 5) is ignored
    const forLoop = run('Loop', [i64([], [5]), undefined, f32([], [0])], { body: attr.graph('b') }, 2, body);
    expect(values(forLoop[0])).toEqual([10]);
  });
});

describe('control-flow inference', () => {
  it('ignores outer-scope captures appended after the formal inputs', () => {
    const def = controlflowOps.find((d) => d.type === 'Scan');
    if (!def) throw new Error('no Scan');
    const seen: number[] = [];
    const out = inferOnValues(
      def,
      [
        { dtype: 'float32', shape: [2] },
        { dtype: 'float32', shape: [5, 2] },
        { dtype: 'float32', shape: [] },
      ],
      {
        attrs: new Map([
          ['num_scan_inputs', attr.int(1)],
          ['_implicit_inputs', attr.int(1)],
        ]),
        outputCount: 2,
        inferSubgraph: (_name, inputs) => {
          seen.push(inputs.length);
          return [inputs[0], inputs[1]];
        },
      },
    );
    expect(seen).toEqual([2]);
    expect(out[0]?.shape).toEqual([2]);
    expect(out[1]?.shape).toEqual([5, 2]);
  });
});

describe('Scan', () => {
  it('accumulates over a reversed scan input and writes a reversed scan output', () => {
    const body: KernelContextV1['runSubgraph'] = (_name, inputs) => {
      const sum = readNumber(inputs[0] as HostTensor, 0) + readNumber(inputs[1] as HostTensor, 0);
      return [f32([], [sum]), f32([], [sum])];
    };
    const attrs = {
      body: attr.graph('b'),
      num_scan_inputs: attr.int(1),
      scan_input_directions: attr.ints([1]),
      scan_output_directions: attr.ints([1]),
    };
    const out = run('Scan', [f32([], [0]), f32([3], [1, 2, 3])], attrs, 2, body);
    expect(values(out[0])).toEqual([6]);
    expect(values(out[1])).toEqual([6, 5, 3]);
  });
  it('scans along axis 1 and stacks along axis 1', () => {
    const body: KernelContextV1['runSubgraph'] = (_name, inputs) => [inputs[0] as HostTensor, inputs[1] as HostTensor];
    const attrs = {
      body: attr.graph('b'),
      num_scan_inputs: attr.int(1),
      scan_input_axes: attr.ints([1]),
      scan_output_axes: attr.ints([-1]),
    };
    const out = run('Scan', [f32([], [0]), f32([2, 3], [0, 1, 2, 3, 4, 5])], attrs, 2, body);
    expect((out[1] as HostTensor).dims).toEqual([2, 3]);
    expect(values(out[1])).toEqual([0, 1, 2, 3, 4, 5]);
  });
});

describe('sequences', () => {
  it('constructs, inserts, erases, reads and measures', () => {
    const a = f32([1], [1]);
    const b = f32([1], [2]);
    const s = run('SequenceConstruct', [a, b])[0] as SequenceValue;
    const inserted = run('SequenceInsert', [s, f32([1], [3]), i64([], [-1])])[0] as SequenceValue;
    expect(inserted.items.map((t) => values(t)[0])).toEqual([1, 3, 2]);
    const erased = run('SequenceErase', [inserted])[0] as SequenceValue;
    expect(erased.items.map((t) => values(t)[0])).toEqual([1, 3]);
    expect(values(run('SequenceAt', [erased, i64([], [-1])])[0])).toEqual([3]);
    expect(values(run('SequenceLength', [erased])[0])).toEqual([2n]);
    expect(() => run('SequenceAt', [erased, i64([], [2])])).toThrow(/out of range/);
    const empty = run('SequenceEmpty', [], { dtype: attr.int(7) })[0] as SequenceValue;
    expect(empty.elementType).toBe('int64');
  });
  it('splits to and concatenates from sequences', () => {
    const x = f32([3, 2], [0, 1, 2, 3, 4, 5]);
    const parts = run('SplitToSequence', [x, i64([], [2])])[0] as SequenceValue;
    expect(parts.items.map((t) => t.dims)).toEqual([
      [2, 2],
      [1, 2],
    ]);
    const rows = run('SplitToSequence', [x], { keepdims: attr.int(0) })[0] as SequenceValue;
    expect(rows.items.map((t) => t.dims)).toEqual([[2], [2], [2]]);
    expect(values(run('ConcatFromSequence', [parts], { axis: attr.int(0) })[0])).toEqual([0, 1, 2, 3, 4, 5]);
    const stacked = run('ConcatFromSequence', [rows], { axis: attr.int(-1), new_axis: attr.int(1) })[0] as HostTensor;
    expect(stacked.dims).toEqual([2, 3]);
    expect(values(stacked)).toEqual([0, 2, 4, 1, 3, 5]);
  });
  it('maps a body over sequences and broadcast tensors', () => {
    const body: KernelContextV1['runSubgraph'] = (_name, inputs) => [
      f32([], [readNumber(inputs[0] as HostTensor, 0) + readNumber(inputs[1] as HostTensor, 0)]),
    ];
    const out = run(
      'SequenceMap',
      [seq([f32([], [1]), f32([], [2])]), f32([], [10])],
      { body: attr.graph('b') },
      1,
      body,
    )[0] as SequenceValue;
    expect(out.items.map((t) => values(t)[0])).toEqual([11, 12]);
  });
});

describe('optionals', () => {
  it('wraps, tests and unwraps', () => {
    const t = f32([1], [4]);
    const some = run('Optional', [t])[0];
    const none = run('Optional', [undefined])[0];
    expect(values(run('OptionalHasElement', [some])[0])).toEqual([1]);
    expect(values(run('OptionalHasElement', [none])[0])).toEqual([0]);
    expect(values(run('OptionalHasElement', [undefined])[0])).toEqual([0]);
    expect(values(run('OptionalHasElement', [t])[0])).toEqual([1]);
    expect(run('OptionalGetElement', [some])[0]).toBe(t);
    expect(run('OptionalGetElement', [t])[0]).toBe(t);
    expect(() => run('OptionalGetElement', [none])).toThrow(/empty/);
  });
});
