// Kernels of a private test domain, so executor tests do not depend on which default kernels exist.
// Workers import this module by URL (LoadModelOptions.kernelModules).
import { threadId } from 'node:worker_threads';
import type { HostTensor, KernelContextV1, KernelLibraryV1, KernelV1, LinearMemory } from '@tsge/metadef';
import { attr } from '@tsge/metadef';

export const TEST_DOMAIN = 'test.tsge';

const kernel = (opType: string, compute: (ctx: KernelContextV1) => void): KernelV1 => ({
  specVersion: 'v1',
  opType,
  domain: TEST_DOMAIN,
  name: 'reference',
  compute,
});
const f32 = (t: HostTensor | undefined): Float32Array => t?.data as Float32Array;

function binary(opType: string, f: (a: number, b: number) => number): KernelV1 {
  return kernel(opType, (ctx) => {
    const a = ctx.tensor(0) as HostTensor;
    const b = ctx.tensor(1) as HostTensor;
    const out = f32(ctx.output(0, a.dims, 'float32'));
    const x = f32(a);
    const y = f32(b);
    for (let i = 0; i < out.length; i++) out[i] = f(x[i] as number, y[i % y.length] as number);
  });
}

/** Inputs that `Record` saw on this thread, one sum per call (warm-up tests read it). */
export const recorded: number[] = [];

const kernels: readonly KernelV1[] = [
  // y = x, remembering the sum of x
  kernel('Record', (ctx) => {
    const x = f32(ctx.tensor(0));
    f32(ctx.output(0, (ctx.tensor(0) as HostTensor).dims, 'float32')).set(x);
    recorded.push(x.reduce((s, v) => s + v, 0));
  }),
  binary('Add', (a, b) => a + b),
  binary('Mul', (a, b) => a * b),
  kernel('Relu', (ctx) => {
    const x = f32(ctx.tensor(0));
    const out = f32(ctx.output(0, (ctx.tensor(0) as HostTensor).dims, 'float32'));
    for (let i = 0; i < out.length; i++) out[i] = Math.max(0, x[i] as number);
  }),
  // busy work for `iterations` rounds (attribute), then y = x + 1: a long-running kernel
  kernel('Spin', (ctx) => {
    const x = f32(ctx.tensor(0));
    const rounds = ctx.attrs.int('iterations', 1);
    let acc = 0;
    for (let r = 0; r < rounds; r++) for (let i = 0; i < x.length; i++) acc += Math.sqrt((x[i] as number) * (x[i] as number) + r);
    const out = f32(ctx.output(0, (ctx.tensor(0) as HostTensor).dims, 'float32'));
    for (let i = 0; i < out.length; i++) out[i] = (x[i] as number) + 1 + acc * 0;
  }),
  kernel('Fail', () => {
    throw new Error('this kernel always fails');
  }),
  // asks for an output twice the planned size
  kernel('Oversize', (ctx) => {
    const x = ctx.tensor(0) as HostTensor;
    ctx.output(0, [x.dims.reduce((a, b) => a * b, 1) * 2], 'float32');
  }),
  // y has as many elements as the first value of x (a shape known only at run time): y[i] = i
  kernel('Iota', (ctx) => {
    const n = Math.max(0, Math.floor((f32(ctx.tensor(0))[0] as number) ?? 0));
    const out = f32(ctx.output(0, [n], 'float32'));
    for (let i = 0; i < n; i++) out[i] = i;
  }),
  // busy work for x[0] rounds (a value of the input, so one model runs long or short), then y = x
  kernel('SpinFor', (ctx) => {
    const x = ctx.tensor(0) as HostTensor;
    const rounds = Math.floor(f32(x)[0] as number);
    let acc = 0;
    for (let r = 0; r < rounds; r++) acc += Math.sqrt(r);
    const out = f32(ctx.output(0, x.dims, 'float32'));
    out.set(f32(x));
    if (acc < 0) out[0] = acc;
  }),
  // hands its input over as the output (aliasing the input's memory)
  kernel('Alias', (ctx) => {
    ctx.setOutput(0, ctx.tensor(0) as HostTensor);
  }),
  // overwrites its input's memory in place with zeros, then outputs x * 0 (after Alias, this
  // would corrupt the alias if the alias shared the memory)
  kernel('Clobber', (ctx) => {
    const x = ctx.tensor(0) as HostTensor;
    (x.data as Float32Array).fill(0);
    ctx.output(0, x.dims, 'float32');
  }),
  // ends the thread it runs on (a worker dying mid-run)
  kernel('Exit', () => {
    process.exit(3);
  }),
  // y = x * 3 in 4 tiles through ctx.parallel; who[t] = 1 + the thread id that ran tile t.
  // With `meet` set, a tile waits (up to 10 s) until two tiles run at once, proving helpers work.
  {
    ...kernel('ParallelScale', (ctx) => {
      const x = ctx.tensor(0) as HostTensor;
      const y = ctx.output(0, x.dims, 'float32');
      const who = ctx.output(1, [TILES + 1], 'int32');
      (who.data as Int32Array).fill(0);
      const n = x.dims[0] as number;
      const meet = ctx.parallel && ctx.attrs.int('meet', 0) === 1 ? 1 : 0;
      const addr = (t: HostTensor): number => (t.data as Float32Array).byteOffset;
      const tiles = Array.from({ length: TILES }, (_, t) => [
        addr(x),
        addr(y),
        addr(who),
        Math.floor((t * n) / TILES),
        Math.floor(((t + 1) * n) / TILES),
        t,
        meet,
      ]);
      if (ctx.parallel && ctx.memory) ctx.parallel.run('test.scale', tiles);
      else for (const t of tiles) scaleTile(ctx.memory ?? { buffer: (x.data as Float32Array).buffer, grow: () => 0 }, t);
    }),
    parallel: true,
  },
  // If-like: runs subgraph then_branch when x[0] > 0, else else_branch, on input x
  kernel('Choose', (ctx) => {
    const x = ctx.tensor(0) as HostTensor;
    const branch = (f32(x)[0] as number) > 0 ? 'then_branch' : 'else_branch';
    const [result] = ctx.runSubgraph(branch, [x]);
    if (result) ctx.setOutput(0, result);
  }),
];

/** Attribute helper re-exported for tests building Spin nodes. */
export const iterations = (n: number): Record<string, ReturnType<typeof attr.int>> => ({ iterations: attr.int(n) });

const TILES = 4;

/** The one tile function of this library (the executor's helpers run it by name). */
function scaleTile(memory: LinearMemory, args: readonly number[]): void {
  const [xAddr, yAddr, whoAddr, start, end, tile, meet] = args as [number, number, number, number, number, number, number];
  const f32 = new Float32Array(memory.buffer);
  const i32 = new Int32Array(memory.buffer);
  for (let i = start; i < end; i++) f32[yAddr / 4 + i] = (f32[xAddr / 4 + i] as number) * 3;
  i32[whoAddr / 4 + tile] = threadId + 1;
  if (meet) {
    const sync = whoAddr / 4 + TILES;
    Atomics.add(i32, sync, 1);
    Atomics.notify(i32, sync);
    const deadline = Date.now() + 10_000;
    for (let seen = Atomics.load(i32, sync); seen < 2 && Date.now() < deadline; seen = Atomics.load(i32, sync))
      Atomics.wait(i32, sync, seen, 50);
  }
}

/** This module's kernel library: the test kernels and their tile function. */
export const kernelLibrary: KernelLibraryV1 = {
  specVersion: 'v1',
  name: 'test-kernels',
  device: 'host',
  kernels,
  tiles: [{ name: 'test.scale', run: scaleTile }],
};
