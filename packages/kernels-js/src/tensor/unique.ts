// Unique: distinct elements (or slices along an axis), first-occurrence indices, inverse indices
// and counts; sorted ascending by default, else in order of first occurrence.
import { type HostTensor, bfloat16ToNumber, float16ToNumber } from '@tsge/metadef';
import { copyBlock, product } from '../common/tensor-copy.js';
import { kernelAxis, requireTensor } from '../common/tensor-infer.js';
import { defineKernel } from '../define.js';

type Key = number | bigint | string;

/** Comparable values of a tensor's elements (half precision decoded). */
function comparableValues(x: HostTensor): ArrayLike<Key> {
  if (x.type === 'float16') return Array.from(x.data as Uint16Array, float16ToNumber);
  if (x.type === 'bfloat16') return Array.from(x.data as Uint16Array, bfloat16ToNumber);
  return x.data as unknown as ArrayLike<Key>;
}

export const uniqueKernel = defineKernel({
  opType: 'Unique',
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    const hasAxis = ctx.attrs.has('axis');
    const dims = hasAxis ? x.dims : [x.data.length];
    const axis = hasAxis ? kernelAxis(ctx, ctx.attrs.int('axis'), x.dims.length) : 0;
    const outer = product(dims, 0, axis);
    const slices = dims[axis] as number;
    const inner = product(dims, axis + 1);
    const values = comparableValues(x);
    // slice j = elements (o, j, i) in (o, i) order
    const sliceKey = (j: number): Key[] => {
      const key: Key[] = [];
      for (let o = 0; o < outer; o++) for (let i = 0; i < inner; i++) key.push(values[(o * slices + j) * inner + i] as Key);
      return key;
    };
    const groupOf = new Map<string, number>();
    const firstIndex: number[] = [];
    const keys: Key[][] = [];
    const counts: number[] = [];
    const inverse = new Int32Array(slices);
    for (let j = 0; j < slices; j++) {
      const key = sliceKey(j);
      const text = key.map((v) => (typeof v === 'string' ? JSON.stringify(v) : String(v === 0 ? 0 : v))).join(',');
      let g = groupOf.get(text);
      if (g === undefined) {
        g = keys.length;
        groupOf.set(text, g);
        keys.push(key);
        firstIndex.push(j);
        counts.push(0);
      }
      counts[g] = (counts[g] as number) + 1;
      inverse[j] = g;
    }
    let order = keys.map((_, g) => g);
    if (ctx.attrs.int('sorted', 1) !== 0) {
      const compare = (a: Key[], b: Key[]): number => {
        for (let i = 0; i < a.length; i++) {
          const p = a[i] as Key;
          const q = b[i] as Key;
          if (p < q) return -1;
          if (p > q) return 1;
        }
        return 0;
      };
      order = order.sort((a, b) => compare(keys[a] as Key[], keys[b] as Key[]));
    }
    const rank = new Int32Array(order.length);
    order.forEach((g, position) => {
      rank[g] = position;
    });
    const yDims = [...dims];
    yDims[axis] = order.length;
    const y = ctx.output(0, yDims, x.type);
    order.forEach((g, position) => {
      const j = firstIndex[g] as number;
      for (let o = 0; o < outer; o++) copyBlock(x.data, (o * slices + j) * inner, y.data, (o * order.length + position) * inner, inner);
    });
    const writeInt64 = (index: number, list: ArrayLike<number>): void => {
      if (ctx.outputCount <= index) return;
      const t = ctx.output(index, [list.length], 'int64');
      const out = t.data as BigInt64Array;
      for (let i = 0; i < list.length; i++) out[i] = BigInt(list[i] as number);
    };
    writeInt64(
      1,
      order.map((g) => firstIndex[g] as number),
    );
    writeInt64(
      2,
      Array.from(inverse, (g) => rank[g] as number),
    );
    writeInt64(
      3,
      order.map((g) => counts[g] as number),
    );
  },
});
export const uniqueKernels = [uniqueKernel];
