import { AttrError, type AttrValue, type DataType, type HostTensor, TsgeError, attr, createTensor } from '@tsge/metadef';
import { describe, expect, it } from 'vitest';
import { runKernelOnHost } from '../host/run-on-host.js';
import { mathKernels } from './index.js';

/** A deterministic generator so a failure reproduces. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

const TYPES: readonly DataType[] = [
  'float32',
  'float64',
  'float16',
  'bfloat16',
  'float8e4m3fn',
  'int4',
  'int8',
  'int32',
  'int64',
  'uint8',
  'uint64',
  'bool',
  'string',
];
const ATTRS: readonly Record<string, AttrValue>[] = [
  {},
  { axis: attr.int(5) },
  { axis: attr.int(-1) },
  { to: attr.int(99) },
  { to: attr.int(8) },
  { equation: attr.string('ij,jk->ik') },
  { equation: attr.string('->->') },
  { keepdims: attr.int(0), noop_with_empty_axes: attr.int(1) },
  { direction: attr.string('LEFT') },
  { pattern: attr.string('(a+)+$') },
  { onesided: attr.int(1), inverse: attr.int(1) },
  { k: attr.int(3), transA: attr.int(1), upper: attr.int(0) },
  { delimiter: attr.string('1'), maxsplit: attr.int(0), stopwords: attr.strings(['1']) },
  {
    mode: attr.string('TF'),
    min_gram_length: attr.int(1),
    max_gram_length: attr.int(2),
    max_skip_count: attr.int(1),
    ngram_counts: attr.ints([0, 9]),
    ngram_indexes: attr.ints([0]),
    pool_int64s: attr.ints([1]),
  },
];

function randomTensor(random: () => number): HostTensor {
  const type = TYPES[Math.floor(random() * TYPES.length)]!;
  const dims = Array.from({ length: Math.floor(random() * 4) }, () => Math.floor(random() * 4));
  const t = createTensor(type, dims);
  const data = t.data as unknown as { [i: number]: unknown; length: number };
  for (let i = 0; i < data.length; i++) {
    const v = Math.floor(random() * 10) - 3;
    data[i] =
      type === 'string' ? String(v) : type === 'int64' || type === 'uint64' ? BigInt(Math.abs(v)) : type === 'bool' ? v & 1 : Math.abs(v);
  }
  return t;
}

describe('robustness', () => {
  it('turns random bad inputs and attributes into TsgeError or AttrError, never a raw TypeError', () => {
    const random = generator(11);
    const raw: string[] = [];
    for (let round = 0; round < 60; round++) {
      for (const kernel of mathKernels) {
        const inputs = Array.from({ length: Math.floor(random() * 4) }, () => (random() < 0.1 ? undefined : randomTensor(random)));
        const attrs = ATTRS[Math.floor(random() * ATTRS.length)]!;
        try {
          runKernelOnHost(kernel, inputs, { attrs: new Map(Object.entries(attrs)), outputCount: 2 });
        } catch (error) {
          if (!TsgeError.isInstance(error) && !(error instanceof AttrError)) raw.push(`${kernel.opType}: ${String(error)}`);
        }
      }
    }
    expect(raw).toEqual([]);
  });
});
