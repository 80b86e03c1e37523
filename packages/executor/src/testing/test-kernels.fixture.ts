// Kernels of a private test domain, so executor tests do not depend on which @tsge/ops kernels exist.
// Workers import this module by URL (LoadModelOptions.kernelModules).
import type { HostTensor, KernelContextV1, KernelV1 } from '@tsge/metadef';
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

export const kernels: readonly KernelV1[] = [
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
