// com.microsoft GroupQueryAttention on random inputs, against onnxruntime-node: separate and packed
// QKV, rotary (half-split and interleaved), local window, softcap, smooth softmax, float16 caches,
// first prompt, subsequent prompt and decode with per-batch seqlens_k; and with present bound to
// the past's device tensors (past_present_share_buffer: the cache is max length, written in place),
// on the calling thread and on workers.
import { compileModel, loadModel, parseModel } from '@tsge/ge';
import type { TraceEvent } from '@tsge/ge';
import { type HostTensor, float16ToNumber, numberToFloat16 } from '@tsge/metadef';
import * as ort from 'onnxruntime-node';
import { describe, expect, it } from 'vitest';
import { type Attr, type Operand, singleNodeModel } from './single-node-model.fixture.js';

function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

type Float = 'float32' | 'float16';

interface Case {
  name: string;
  type: Float;
  batch: number;
  seq: number;
  past: number;
  heads: number;
  kvHeads: number;
  head: number;
  seqlens: number[];
  total: number;
  packed?: boolean;
  rotary?: { interleaved: boolean; half: number };
  attrs?: Attr[];
  /** The past is a max-length (total + 3) device tensor the present is bound to; run on `threads`. */
  shared?: { threads: number };
  /** The kernel the node must have run on (float32 caches: the SIMD kernel; the rest: the reference). */
  kernel?: string;
}

function floats(type: Float, dims: number[], random: () => number): HostTensor {
  const n = dims.reduce((a, b) => a * b, 1);
  const values = Array.from({ length: n }, () => random() * 2 - 1);
  if (type === 'float32') return { type, dims, data: Float32Array.from(values) };
  return { type, dims, data: Uint16Array.from(values, numberToFloat16) };
}

const numbers = (t: { type: string; data: unknown }): number[] =>
  t.type === 'float16' ? Array.from(t.data as Uint16Array, float16ToNumber) : Array.from(t.data as Float32Array);

async function check(c: Case): Promise<void> {
  const random = lcg(c.seq * 31 + c.past * 7 + c.heads);
  const width = (c.packed ? c.heads + 2 * c.kvHeads : c.heads) * c.head;
  const maxPos = c.total + 2;
  const feeds: Record<string, HostTensor> = {
    query: floats(c.type, [c.batch, c.seq, width], random),
    past_key: floats(c.type, [c.batch, c.kvHeads, c.shared ? c.total + 3 : c.past, c.head], random),
    past_value: floats(c.type, [c.batch, c.kvHeads, c.shared ? c.total + 3 : c.past, c.head], random),
    seqlens_k: { type: 'int32', dims: [c.batch], data: Int32Array.from(c.seqlens) },
    total_sequence_length: { type: 'int32', dims: [], data: Int32Array.of(c.total) },
  };
  if (!c.packed) {
    feeds.key = floats(c.type, [c.batch, c.seq, c.kvHeads * c.head], random);
    feeds.value = floats(c.type, [c.batch, c.seq, c.kvHeads * c.head], random);
  }
  if (c.rotary) {
    const { half } = c.rotary;
    const angle = (p: number, j: number) => p * 10000 ** (-j / half);
    const cos = Array.from({ length: maxPos * half }, (_, i) => Math.cos(angle(Math.floor(i / half), i % half)));
    const sin = Array.from({ length: maxPos * half }, (_, i) => Math.sin(angle(Math.floor(i / half), i % half)));
    const of = (v: number[]): HostTensor =>
      c.type === 'float32'
        ? { type: c.type, dims: [maxPos, half], data: Float32Array.from(v) }
        : { type: c.type, dims: [maxPos, half], data: Uint16Array.from(v, numberToFloat16) };
    feeds.cos_cache = of(cos);
    feeds.sin_cache = of(sin);
  }
  const op = (name: string, type: Operand['type'], dims: (number | string)[]): Operand => ({ name, type, dims });
  const inputs: (Operand | undefined)[] = [
    op('query', c.type, ['batch', 'seq', width]),
    c.packed ? undefined : op('key', c.type, ['batch', 'seq', c.kvHeads * c.head]),
    c.packed ? undefined : op('value', c.type, ['batch', 'seq', c.kvHeads * c.head]),
    op('past_key', c.type, ['batch', c.kvHeads, 'past', c.head]),
    op('past_value', c.type, ['batch', c.kvHeads, 'past', c.head]),
    op('seqlens_k', 'int32', ['batch']),
    op('total_sequence_length', 'int32', []),
    ...(c.rotary ? [op('cos_cache', c.type, ['max', c.rotary.half]), op('sin_cache', c.type, ['max', c.rotary.half])] : []),
  ];
  const outputs = [
    op('output', c.type, ['batch', 'seq', c.heads * c.head]),
    op('present_key', c.type, ['batch', c.kvHeads, 'present', c.head]),
    op('present_value', c.type, ['batch', c.kvHeads, 'present', c.head]),
  ];
  const attrs: Attr[] = [
    { name: 'num_heads', int: c.heads },
    { name: 'kv_num_heads', int: c.kvHeads },
    ...(c.rotary
      ? [
          { name: 'do_rotary', int: 1 },
          { name: 'rotary_interleaved', int: c.rotary.interleaved ? 1 : 0 },
        ]
      : []),
    ...(c.attrs ?? []),
  ];
  const bytes = singleNodeModel('GroupQueryAttention', 'com.microsoft', inputs, outputs, attrs);
  const session = await ort.InferenceSession.create(bytes);
  const expected = await session.run(
    Object.fromEntries(
      Object.entries(feeds).map(([k, t]) => [k, new ort.Tensor(t.type as 'float32', t.data as Float32Array, t.dims as number[])]),
    ),
  );
  await session.release();
  const model = await loadModel((await compileModel(await parseModel(bytes, { fileName: 'gqa.onnx' }))).om, {
    threads: c.shared?.threads ?? 1,
    profile: c.kernel !== undefined,
  });
  let actual: Record<string, unknown>;
  if (c.shared) {
    const cache = (t: HostTensor) => {
      const d = model.createDeviceTensor(t.type, t.dims);
      (d.data as Float32Array).set(t.data as Float32Array);
      return d;
    };
    const pastKey = cache(feeds.past_key as HostTensor);
    const pastValue = cache(feeds.past_value as HostTensor);
    actual = await model.run(
      { ...feeds, past_key: pastKey, past_value: pastValue },
      { outputs: { present_key: pastKey, present_value: pastValue } },
    );
    expect(actual.present_key).toBe(pastKey);
    expect(actual.present_value).toBe(pastValue);
  } else actual = await model.run(feeds);
  if (c.kernel) {
    const kernels = model
      .profile()
      .traceEvents.filter((e): e is TraceEvent => e.ph === 'X' && e.cat === 'GroupQueryAttention')
      .map((e) => ('kernel' in e.args ? e.args.kernel : ''));
    expect(kernels, `${c.name}: kernel`).toEqual([c.kernel]);
  }
  const P = (expected.present_key as ort.Tensor).dims[2] as number;
  // rows a batch's seqlens_k leaves past its valid length are not part of a shared cache's contract
  const compared = (name: string, i: number): boolean => {
    if (!c.shared || name === 'output') return true;
    const batch = Math.floor(i / (c.kvHeads * P * c.head));
    return Math.floor(i / c.head) % P <= (c.seqlens[batch] as number);
  };
  for (const name of ['output', 'present_key', 'present_value']) {
    const want = expected[name] as ort.Tensor;
    const got = actual[name] as HostTensor;
    expect(got.dims, `${c.name}: ${name}`).toEqual(want.dims);
    const a = numbers(got);
    const b = numbers(want);
    const tolerance = c.type === 'float16' ? 4e-3 : 2e-5;
    let worst = 0;
    for (let i = 0; i < b.length; i++) if (compared(name, i)) worst = Math.max(worst, Math.abs((a[i] as number) - (b[i] as number)));
    expect(worst, `${c.name}: ${name}`).toBeLessThanOrEqual(tolerance);
  }
  await model.release();
}

const cases: Case[] = [
  { name: 'first prompt, fp32', type: 'float32', batch: 2, seq: 5, past: 0, heads: 4, kvHeads: 2, head: 8, seqlens: [4, 4], total: 5 },
  {
    name: 'decode, fp32, ragged seqlens',
    type: 'float32',
    batch: 2,
    seq: 1,
    past: 6,
    heads: 4,
    kvHeads: 1,
    head: 8,
    seqlens: [6, 3],
    total: 7,
  },
  {
    name: 'decode, fp16 cache, packed QKV, rotary',
    type: 'float16',
    batch: 2,
    seq: 1,
    past: 6,
    heads: 4,
    kvHeads: 2,
    head: 16,
    seqlens: [6, 4],
    total: 7,
    packed: true,
    rotary: { interleaved: false, half: 8 },
  },
  {
    name: 'first prompt, fp16, interleaved partial rotary, local window',
    type: 'float16',
    batch: 1,
    seq: 8,
    past: 0,
    heads: 2,
    kvHeads: 2,
    head: 32,
    seqlens: [7],
    total: 8,
    rotary: { interleaved: true, half: 8 },
    attrs: [{ name: 'local_window_size', int: 3 }],
  },
  {
    name: 'first prompt, fp32, local window',
    type: 'float32',
    batch: 1,
    seq: 8,
    past: 0,
    heads: 2,
    kvHeads: 2,
    head: 8,
    seqlens: [7],
    total: 8,
    attrs: [{ name: 'local_window_size', int: 3 }],
  },
  {
    name: 'first prompt, fp32, interleaved rotary',
    type: 'float32',
    batch: 1,
    seq: 8,
    past: 0,
    heads: 2,
    kvHeads: 2,
    head: 32,
    seqlens: [7],
    total: 8,
    rotary: { interleaved: true, half: 8 },
  },
  {
    name: 'subsequent prompt, fp32, softcap, smooth softmax, scale',
    type: 'float32',
    batch: 1,
    seq: 3,
    past: 4,
    heads: 4,
    kvHeads: 2,
    head: 8,
    seqlens: [6],
    total: 7,
    attrs: [
      { name: 'softcap', float: 0.7 },
      { name: 'smooth_softmax', int: 1 },
      { name: 'scale', float: 0.5 },
    ],
  },
];

/** A past longer than the SIMD kernel's key block (64), a prompt of several rows, partial rotary. */
const longPast: Case = {
  name: 'subsequent prompt, fp32, long past, partial rotary',
  type: 'float32',
  batch: 1,
  seq: 4,
  past: 200,
  heads: 4,
  kvHeads: 2,
  head: 64,
  seqlens: [203],
  total: 204,
  rotary: { interleaved: false, half: 16 },
  kernel: 'wasm-simd',
};
cases.push(
  longPast,
  { ...longPast, name: 'subsequent prompt, fp16 cache, long past, partial rotary', type: 'float16' },
  { ...(cases[2] as Case), name: 'decode, fp16 cache, packed QKV, rotary (SIMD kernel)', kernel: 'wasm-simd' },
);

const sharedCases: Case[] = [
  { ...longPast, name: 'shared buffer: subsequent prompt, fp32, long past, partial rotary, on workers', shared: { threads: 2 } },
  { ...(cases[1] as Case), name: 'shared buffer: decode, fp32, ragged seqlens (SIMD kernel)', shared: { threads: 1 }, kernel: 'wasm-simd' },
  { ...(cases[1] as Case), name: 'shared buffer: decode, fp32, ragged seqlens', shared: { threads: 1 } },
  {
    name: 'shared buffer: decode, fp32, packed QKV, rotary, on workers',
    type: 'float32',
    batch: 2,
    seq: 1,
    past: 6,
    heads: 4,
    kvHeads: 2,
    head: 16,
    seqlens: [6, 4],
    total: 7,
    packed: true,
    rotary: { interleaved: false, half: 8 },
    shared: { threads: 2 },
  },
  { ...(cases[0] as Case), name: 'shared buffer: first prompt, fp32', shared: { threads: 1 } },
  { ...(cases[6] as Case), name: 'shared buffer: subsequent prompt, softcap, smooth softmax, scale', shared: { threads: 1 } },
  {
    ...(cases[4] as Case),
    name: 'shared buffer: decode, fp32, local window',
    seq: 1,
    past: 7,
    seqlens: [7],
    total: 8,
    shared: { threads: 1 },
  },
  { ...(cases[2] as Case), name: 'shared buffer: decode, fp16 cache, packed QKV, rotary', shared: { threads: 1 }, kernel: 'wasm-simd' },
  {
    ...longPast,
    type: 'float16',
    name: 'shared buffer: subsequent prompt, fp16, long past, partial rotary, on workers',
    shared: { threads: 2 },
  },
  { ...(cases[2] as Case), name: 'shared buffer: decode, fp16 cache, packed QKV, rotary, on workers', shared: { threads: 2 } },
  { ...(cases[3] as Case), name: 'shared buffer: first prompt, fp16, interleaved partial rotary, local window', shared: { threads: 1 } },
  {
    ...(cases[3] as Case),
    name: 'shared buffer: decode, fp16, interleaved partial rotary, local window',
    seq: 1,
    past: 7,
    seqlens: [7],
    total: 8,
    shared: { threads: 1 },
  },
];

describe('com.microsoft GroupQueryAttention vs onnxruntime-node', () => {
  for (const c of [...cases, ...sharedCases]) it(c.name, () => check(c), 60_000);
});

/**
 * Elements of the typed arrays constructed while `run` runs (views of an existing buffer count
 * nothing): the constructors are wrapped, so the count covers every kernel on this thread.
 */
async function allocatedElements(run: () => Promise<unknown>): Promise<number> {
  const names = ['Float32Array', 'Float64Array', 'Uint16Array', 'Int32Array'] as const;
  const global = globalThis as unknown as Record<string, unknown>;
  const saved = names.map((name) => global[name]);
  let elements = 0;
  for (const name of names)
    global[name] = new Proxy(global[name] as new (...args: unknown[]) => object, {
      construct(target, args, newTarget) {
        const [first] = args;
        if (typeof first === 'number') elements += first;
        else if (first !== undefined && !(first instanceof ArrayBuffer) && !(first instanceof SharedArrayBuffer))
          elements += (first as ArrayLike<unknown>).length ?? 0;
        return Reflect.construct(target, args, newTarget === global[name] ? target : newTarget);
      },
    });
  try {
    await run();
  } finally {
    names.forEach((name, i) => {
      global[name] = saved[i];
    });
  }
  return elements;
}

describe('a float16 cache bound to its present: one decode step allocates nothing proportional to the context', () => {
  it('allocates the same at 64 and 4096 cache rows, bound or copied', async () => {
    const heads = 4;
    const kvHeads = 2;
    const head = 16;
    const width = (heads + 2 * kvHeads) * head;
    const op = (name: string, dims: (number | string)[], type: Operand['type'] = 'float16'): Operand => ({ name, type, dims });
    const bytes = singleNodeModel(
      'GroupQueryAttention',
      'com.microsoft',
      [
        op('query', [1, 'seq', width]),
        undefined,
        undefined,
        op('past_key', [1, kvHeads, 'past', head]),
        op('past_value', [1, kvHeads, 'past', head]),
        op('seqlens_k', [1], 'int32'),
        op('total_sequence_length', [], 'int32'),
      ],
      [op('output', [1, 'seq', heads * head]), op('present_key', [1, kvHeads, 'p', head]), op('present_value', [1, kvHeads, 'p', head])],
      [
        { name: 'num_heads', int: heads },
        { name: 'kv_num_heads', int: kvHeads },
      ],
    );
    const model = await loadModel((await compileModel(await parseModel(bytes, { fileName: 'gqa.onnx' }))).om, { threads: 1 });
    const random = lcg(5);
    const step = async (rows: number, bound: boolean): Promise<number> => {
      const cache = () => {
        const d = model.createDeviceTensor('float16', [1, kvHeads, rows, head]);
        (d.data as Uint16Array).set(Uint16Array.from({ length: kvHeads * rows * head }, () => numberToFloat16(random() - 0.5)));
        return d;
      };
      const pastKey = cache();
      const pastValue = cache();
      const feeds = {
        query: floats('float16', [1, 1, width], random),
        past_key: pastKey,
        past_value: pastValue,
        // the step attends over all but the last row
        seqlens_k: { type: 'int32', dims: [1], data: Int32Array.of(rows - 2) } as HostTensor,
        total_sequence_length: { type: 'int32', dims: [], data: Int32Array.of(rows - 1) } as HostTensor,
      };
      const options = bound ? { outputs: { present_key: pastKey, present_value: pastValue } } : {};
      await model.run(feeds, options);
      return allocatedElements(() => model.run(feeds, options));
    };
    try {
      const short = await step(64, true);
      const long = await step(4096, true);
      expect(long).toBe(short);
      // a present of its own (the past copied as float16 bits into device memory) allocates no more
      expect(await step(4096, false)).toBe(await step(64, false));
      // the check can fail: the counter sees a typed array proportional to the context
      expect(await allocatedElements(async () => new Uint16Array(2 * kvHeads * 4096 * head))).toBe(2 * kvHeads * 4096 * head);
    } finally {
      await model.release();
    }
  }, 60_000);
});

describe('device tensors and bound outputs: bad use is refused with coded errors', () => {
  it('names the output or the device tensor', async () => {
    const op = (name: string, type: Operand['type'], dims: (number | string)[]): Operand => ({ name, type, dims });
    const bytes = singleNodeModel(
      'GroupQueryAttention',
      'com.microsoft',
      [
        op('query', 'float32', [1, 'seq', 16]),
        op('key', 'float32', [1, 'seq', 8]),
        op('value', 'float32', [1, 'seq', 8]),
        op('past_key', 'float32', [1, 1, 'past', 8]),
        op('past_value', 'float32', [1, 1, 'past', 8]),
        op('seqlens_k', 'int32', [1]),
        op('total_sequence_length', 'int32', []),
      ],
      [
        op('output', 'float32', [1, 'seq', 16]),
        op('present_key', 'float32', [1, 1, 'p', 8]),
        op('present_value', 'float32', [1, 1, 'p', 8]),
      ],
      [
        { name: 'num_heads', int: 2 },
        { name: 'kv_num_heads', int: 1 },
      ],
    );
    const om = (await compileModel(await parseModel(bytes, { fileName: 'gqa.onnx' }))).om;
    const model = await loadModel(om, { threads: 1 });
    const other = await loadModel(om, { threads: 1 });
    const code = async (f: () => unknown): Promise<string> => {
      try {
        await f();
      } catch (error) {
        return (error as { code?: string }).code ?? String(error);
      }
      return 'none';
    };
    try {
      const k = model.createDeviceTensor('float32', [1, 1, 4, 8]);
      const v = model.createDeviceTensor('float32', [1, 1, 4, 8]);
      const feeds = {
        query: { type: 'float32', dims: [1, 1, 16], data: new Float32Array(16).fill(0.5) },
        key: { type: 'float32', dims: [1, 1, 8], data: new Float32Array(8).fill(1) },
        value: { type: 'float32', dims: [1, 1, 8], data: new Float32Array(8).fill(2) },
        past_key: k,
        past_value: v,
        seqlens_k: { type: 'int32', dims: [1], data: Int32Array.of(2) },
        total_sequence_length: { type: 'int32', dims: [], data: Int32Array.of(3) },
      } as const;
      expect(await code(() => model.run(feeds, { outputs: { presentKey: k } }))).toBe('TSGE-E4155');
      const plain = { type: 'float32', dims: [1, 1, 4, 8], data: new Float32Array(32) } as unknown as typeof k;
      expect(await code(() => model.run(feeds, { outputs: { present_key: plain } }))).toBe('TSGE-E4153');
      const foreign = other.createDeviceTensor('float32', [1, 1, 4, 8]);
      expect(await code(() => model.run(feeds, { outputs: { present_key: foreign } }))).toBe('TSGE-E4153');
      expect(await code(() => model.run({ ...feeds, past_key: foreign }))).toBe('TSGE-E4153');
      // the present is as long as the past (4 rows): a 5-row tensor does not fit
      const long = model.createDeviceTensor('float32', [1, 1, 5, 8]);
      expect(await code(() => model.run(feeds, { outputs: { present_key: long } }))).toBe('TSGE-E4154');
      expect(await code(() => model.createDeviceTensor('string', [1]))).toBe('TSGE-E4153');
      expect(await code(() => model.createDeviceTensor('float32', [-1]))).toBe('TSGE-E4153');
      // bound in place: the new row lands in row 2 of the cache, the rows before stay
      (k.data as Float32Array).fill(3, 0, 16);
      const out = await model.run(feeds, { outputs: { present_key: k, present_value: v } });
      expect(out.present_key).toBe(k);
      expect(Array.from((k.data as Float32Array).subarray(16, 24))).toEqual(new Array(8).fill(1));
      expect(Array.from((v.data as Float32Array).subarray(16, 24))).toEqual(new Array(8).fill(2));
      expect((k.data as Float32Array)[0]).toBe(3);
      model.releaseDeviceTensor(long);
      expect(await code(() => model.run(feeds, { outputs: { present_key: long } }))).toBe('TSGE-E4153');
    } finally {
      await model.release();
      await other.release();
    }
  });
});
