// tsge::SequenceReserve / SequenceSet / SequenceRead, and the ONNX sequence kernels keeping the
// slots never written (SequenceValue.unwritten) aligned with their items.
import { type AttrMap, type HostTensor, type RuntimeValue, type SequenceValue, attr, createTensor } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { runKernelOnHost } from '../host/run-on-host.js';
import { controlflowKernels } from './index.js';

const f32 = (dims: number[], values: number[]): HostTensor => createTensor('float32', dims, Float32Array.from(values));
const i64 = (dims: number[], values: number[]): HostTensor => createTensor('int64', dims, BigInt64Array.from(values, BigInt));

function run(opType: string, inputs: (RuntimeValue | undefined)[], attrs: Record<string, ReturnType<typeof attr.int>> = {}): RuntimeValue {
  const kernel = controlflowKernels.find((k) => k.opType === opType);
  if (!kernel) throw new Error(`no kernel ${opType}`);
  return runKernelOnHost(kernel, inputs, { attrs: new Map(Object.entries(attrs)) as AttrMap, outputCount: 1 })[0] as RuntimeValue;
}
const float = { dtype: attr.int(1) };
/** Each item as [dims, values], and the unwritten mask. */
function dump(s: RuntimeValue): { items: [number[], number[]][]; unwritten: boolean[] | undefined } {
  const v = s as SequenceValue;
  return { items: v.items.map((t) => [[...t.dims], Array.from(t.data as Float32Array)]), unwritten: v.unwritten && [...v.unwritten] };
}

describe('sequence slots', () => {
  it('reserves zeros of a known element shape, sets them in any order and refuses a read of one never written', () => {
    const reserved = run('SequenceReserve', [i64([], [3]), i64([1], [2])], float);
    expect(dump(reserved)).toEqual({
      items: [
        [[2], [0, 0]],
        [[2], [0, 0]],
        [[2], [0, 0]],
      ],
      unwritten: [true, true, true],
    });
    const set = run('SequenceSet', [reserved, i64([], [2]), f32([2], [5, 6])]);
    expect(dump(set).unwritten).toEqual([true, true, false]);
    expect(() => run('SequenceRead', [set, i64([], [0])])).toThrow(/TSGE-E4003[\s\S]*index 0: it has not yet been written to/);
    expect(Array.from((run('SequenceRead', [set, i64([], [2])]) as HostTensor).data as Float32Array)).toEqual([5, 6]);
    // SequenceAt reads an unwritten slot as its zeros (TensorListGetItem)
    expect(Array.from((run('SequenceAt', [set, i64([], [1])]) as HostTensor).data as Float32Array)).toEqual([0, 0]);
    expect(() => run('SequenceSet', [set, i64([], [3]), f32([2], [1, 1])])).toThrow(/position 3 is out of range for a sequence of 3/);
    expect(() => run('SequenceSet', [set, i64([], [-1]), f32([2], [1, 1])])).toThrow(/out of range/);
    expect(() => run('SequenceRead', [set, i64([], [3])])).toThrow(/out of range/);
    // a TensorList's slot may be set again; a TensorArray's (once) may not
    expect(dump(run('SequenceSet', [set, i64([], [2]), f32([2], [7, 8])])).items[2]).toEqual([[2], [7, 8]]);
    expect(() => run('SequenceSet', [set, i64([], [2]), f32([2], [7, 8])], { once: attr.int(1) })).toThrow(
      /could not write index 2: it has already been written to/,
    );
    expect(() => run('SequenceSet', [reserved, i64([2], [1, 1]), f32([2, 2], [1, 2, 3, 4])], { once: attr.int(1) })).toThrow(/already/);
  });

  it('grows when asked to, shapes slots of an unknown element shape by the first write and scatters rows', () => {
    const reserved = run('SequenceReserve', [i64([], [1])], float);
    expect(dump(reserved)).toEqual({ items: [[[0], []]], unwritten: [true] });
    expect((reserved as SequenceValue).unshaped).toBe(true);
    // nothing has given the slot a shape: reading or stacking it is an error (TensorFlow's too)
    expect(() => run('SequenceAt', [reserved, i64([], [0])])).toThrow(/element 0 was never written and its shape is not known/);
    expect(() => run('ConcatFromSequence', [reserved], { axis: attr.int(0), new_axis: attr.int(1) })).toThrow(/shape is not known/);
    const grown = run('SequenceSet', [reserved, i64([], [3]), f32([2], [1, 2])], { grow: attr.int(1) });
    expect(dump(grown)).toEqual({
      items: [
        [[2], [0, 0]],
        [[2], [0, 0]],
        [[2], [0, 0]],
        [[2], [1, 2]],
      ],
      unwritten: [true, true, true, false],
    });
    expect((grown as SequenceValue).unshaped).toBeUndefined();
    const scattered = run('SequenceSet', [grown, i64([2], [2, 0]), f32([2, 2], [3, 4, 5, 6])]);
    expect(dump(scattered)).toEqual({
      items: [
        [[2], [5, 6]],
        [[2], [0, 0]],
        [[2], [3, 4]],
        [[2], [1, 2]],
      ],
      unwritten: [false, true, false, false],
    });
    expect(() => run('SequenceSet', [grown, i64([2], [0, 1]), f32([3, 2], [0, 0, 0, 0, 0, 0])])).toThrow(
      /2 positions for a tensor of 3 rows/,
    );
    expect(() => run('SequenceSet', [grown, i64([], [0]), createTensor('int32', [2])])).toThrow(/dtype int32 differs/);
  });

  it('shapes unshaped slots by the first element inserted', () => {
    const reserved = run('SequenceReserve', [i64([], [2])], float);
    const pushed = run('SequenceInsert', [reserved, f32([2], [1, 2])]);
    expect(dump(pushed)).toEqual({
      items: [
        [[2], [0, 0]],
        [[2], [0, 0]],
        [[2], [1, 2]],
      ],
      unwritten: [true, true, false],
    });
    expect((pushed as SequenceValue).unshaped).toBeUndefined();
    expect(Array.from((run('SequenceAt', [pushed, i64([], [0])]) as HostTensor).data as Float32Array)).toEqual([0, 0]);
  });

  it('keeps the slots aligned through SequenceInsert and SequenceErase, and drops the mask once all are written', () => {
    const reserved = run('SequenceReserve', [i64([], [2]), i64([1], [1])], float);
    const pushed = run('SequenceInsert', [reserved, f32([1], [7])]);
    expect(dump(pushed).unwritten).toEqual([true, true, false]);
    const front = run('SequenceInsert', [pushed, f32([1], [8]), i64([], [0])]);
    expect(dump(front).unwritten).toEqual([false, true, true, false]);
    const erased = run('SequenceErase', [front, i64([], [1])]);
    expect(dump(erased).unwritten).toEqual([false, true, false]);
    const full = run('SequenceSet', [erased, i64([], [1]), f32([1], [9])]);
    expect(dump(full)).toEqual({
      items: [
        [[1], [8]],
        [[1], [9]],
        [[1], [7]],
      ],
      unwritten: undefined,
    });
  });

  it('resizes: truncates with the mask, grows by unwritten slots of the given, last or no shape', () => {
    const reserved = run('SequenceReserve', [i64([], [3]), i64([1], [2])], float);
    const set = run('SequenceSet', [reserved, i64([], [0]), f32([2], [1, 2])]);
    expect(dump(run('SequenceResize', [set, i64([], [1])]))).toEqual({ items: [[[2], [1, 2]]], unwritten: undefined });
    expect(dump(run('SequenceResize', [set, i64([], [2])])).unwritten).toEqual([false, true]);
    expect(dump(run('SequenceResize', [set, i64([], [0])]))).toEqual({ items: [], unwritten: undefined });
    const grown = run('SequenceResize', [set, i64([], [4])]);
    expect(dump(grown)).toEqual({
      items: [
        [[2], [1, 2]],
        [[2], [0, 0]],
        [[2], [0, 0]],
        [[2], [0, 0]],
      ],
      unwritten: [false, true, true, true],
    });
    // an empty sequence grows by slots of the given shape, or by unshaped ones the next write shapes
    const empty = run('SequenceEmpty', [], float);
    expect(dump(run('SequenceResize', [empty, i64([], [2]), i64([1], [3])])).items).toEqual([
      [[3], [0, 0, 0]],
      [[3], [0, 0, 0]],
    ]);
    const unshaped = run('SequenceResize', [empty, i64([], [2])]);
    expect((unshaped as SequenceValue).unshaped).toBe(true);
    expect(() => run('SequenceLengths', [unshaped])).toThrow(/element 0 was never written and its shape is not known/);
    const shaped = run('SequenceSet', [unshaped, i64([], [1]), f32([1, 2], [5, 6])]);
    expect(dump(shaped).items[0]).toEqual([
      [1, 2],
      [0, 0],
    ]);
    expect(() => run('SequenceResize', [set, i64([], [-1])])).toThrow(/TSGE-E4003[\s\S]*size -1 is not an integer/);
  });

  it('gives the first dimension of each element, written or not', () => {
    const reserved = run('SequenceReserve', [i64([], [3]), i64([2], [2, 1])], float);
    const set = run('SequenceSet', [reserved, i64([], [1]), f32([4, 1], [1, 2, 3, 4])]);
    const lengths = run('SequenceLengths', [set]) as HostTensor;
    expect({ type: lengths.type, dims: lengths.dims, data: Array.from(lengths.data as BigInt64Array, Number) }).toEqual({
      type: 'int64',
      dims: [3],
      data: [2, 4, 2],
    });
    expect((run('SequenceLengths', [run('SequenceEmpty', [], float)]) as HostTensor).dims).toEqual([0]);
    const scalars = run('SequenceConstruct', [f32([], [1])]);
    expect(() => run('SequenceLengths', [scalars])).toThrow(/element 0 is a scalar/);
  });

  it('gives unwritten slots the first dimension leading_dims names (TensorListConcatV2)', () => {
    const reserved = run('SequenceReserve', [i64([], [3]), i64([2], [2, 1])], float);
    const set = run('SequenceSet', [reserved, i64([], [1]), f32([4, 1], [1, 2, 3, 4])]);
    // slot 1 is written: its leading dim (7) is not used; slot 2 lies past leading_dims and keeps [2, 1]
    const rows = run('SequenceSlotRows', [set, i64([2], [3, 7])]);
    expect(dump(rows).items.map(([d]) => d)).toEqual([
      [3, 1],
      [4, 1],
      [2, 1],
    ]);
    expect(dump(rows).unwritten).toEqual([true, false, true]);
    expect(Array.from((run('SequenceLengths', [rows]) as HostTensor).data as BigInt64Array, Number)).toEqual([3, 4, 2]);
    // a trailing shape shapes slots nothing has given a shape; without one they are refused
    const unshaped = run('SequenceReserve', [i64([], [2])], float);
    expect(dump(run('SequenceSlotRows', [unshaped, i64([2], [1, 0]), i64([1], [3])])).items).toEqual([
      [
        [1, 3],
        [0, 0, 0],
      ],
      [[0, 3], []],
    ]);
    expect((run('SequenceSlotRows', [unshaped, i64([2], [1, 0]), i64([1], [3])]) as SequenceValue).unshaped).toBeUndefined();
    expect((run('SequenceSlotRows', [unshaped, i64([1], [1]), i64([1], [3])]) as SequenceValue).unshaped).toBe(true);
    expect(() => run('SequenceSlotRows', [unshaped, i64([2], [1, 1])])).toThrow(/element 0 was never written and its shape is not known/);
    expect(() => run('SequenceSlotRows', [set, i64([1], [-2])])).toThrow(/TSGE-E4003[\s\S]*leading_dims\[0\] = -2 is not a size/);
  });

  it('joins two sequences keeping unwritten slots unwritten (TensorListConcatLists)', () => {
    const reserved = run('SequenceReserve', [i64([], [2]), i64([1], [2])], float);
    const a = run('SequenceSet', [reserved, i64([], [1]), f32([2], [1, 2])]);
    const b = run('SequenceConstruct', [f32([2], [3, 4])]);
    expect(dump(run('SequenceConcat', [a, b]))).toEqual({
      items: [
        [[2], [0, 0]],
        [[2], [1, 2]],
        [[2], [3, 4]],
      ],
      unwritten: [true, false, false],
    });
    expect(dump(run('SequenceConcat', [b, b])).unwritten).toBeUndefined();
    const unshaped = run('SequenceReserve', [i64([], [1])], float);
    expect((run('SequenceConcat', [b, unshaped]) as SequenceValue).unshaped).toBe(true);
    const ints = run('SequenceConstruct', [i64([1], [1])]);
    expect(() => run('SequenceConcat', [b, ints])).toThrow(/TSGE-E4003[\s\S]*element types float32 and int64 differ/);
  });
});
