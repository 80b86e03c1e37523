import {
  type KernelContextV1,
  type KernelDescription,
  type KernelV1,
  KernelKind,
  type LinearMemory,
  TSGE_DOMAIN,
  decodeKernelDescription,
  isRowReductionKOp,
  kernelElements,
} from '@tsge/metadef';
import { checkOperands, defineKernel, descriptionRows, elementwiseTask, interpretDescription } from '@tsge/kernels-js/kernel-support';
import { FUSED_ELEMENTWISE } from '@tsge/ops/kernel-support';
import { compiledModuleEntries, sharedCompiledModule } from './compiled-modules.js';
import { Code, type FunctionDef, I32, type ValType, assembleModule } from './emitter.js';
import { streamFunction } from './elementwise-module.js';
import { EMIT, type Emit } from './generated-emit-ops.js';
import { rowReductionFunction } from './generated-rows.js';
import { hasWasmSimd } from './kernel-modules.js';
import { inMemory } from './simd-matmul.js';
import { runTiles, splitRange, tileFunction } from './tiles.js';

interface WasmApi {
  Instance: new (module: object, imports: Record<string, Record<string, unknown>>) => { exports: Record<string, unknown> };
}
const wasm = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

/**
 * `rows(in0, …, y, n, count, step0, …)`: count runs of n elements along the last dim (byte
 * addresses); after each run input i moves on by step i bytes and y by n elements. One call per
 * run of the next-to-last dim, so short last dims (3 coordinates, 17 keypoints) do not pay a
 * JS→wasm call per row.
 */
type RowsFunction = (...args: number[]) => void;

/** Whether the emitter covers a description: every op code, and rows that each input reads contiguously or as one repeated element. */
export function emittable(d: KernelDescription): boolean {
  const last = d.shape.length - 1;
  return (
    d.instructions.every((i) => EMIT[i.op] !== undefined || isRowReductionKOp(i.op)) &&
    d.inputs.every((x) => x.strides[last] === 0 || x.strides[last] === 1)
  );
}

/** The row function's WebAssembly module of a description (the loop nest's inner loop: f32x4 body, scalar tail). */
export function emitDescription(d: KernelDescription, shared: boolean): Uint8Array {
  if (d.kind === KernelKind.rowReduction) return assembleModule([rowReductionFunction(d), rowsLoop(d.inputs.length, false)], { shared });
  const last = d.shape.length - 1;
  const kinds = d.inputs.map((x) => (x.strides[last] === 0 ? ('scalar' as const) : ('vector' as const)));
  const fn = streamFunction('row', kinds, 0, (code, env) => {
    const regs: number[] = [...env.inputs];
    for (const c of d.constants) {
      const local = env.temp();
      code.f32x4Const(c).set(local);
      regs.push(local);
    }
    for (const ins of d.instructions) {
      const y = env.temp();
      (EMIT[ins.op] as Emit)(code, regs[ins.a] as number, regs[ins.b] as number, env.temp);
      code.set(y);
      regs.push(y);
    }
    code.get(regs[d.output] as number).set(env.out);
  });
  return assembleModule([fn, rowsLoop(kinds.length, false), rowsLoop(kinds.length, true)], { shared });
}

/**
 * `rows`: the outer loop over the next-to-last dim, calling `row` (function 0) once per run; y
 * moves on by the run. `box` takes y's step as one more argument: runs of a block inside a larger
 * output (a conv tile's channels × positions, for an epilogue).
 */
function rowsLoop(k: number, strided: boolean): FunctionDef {
  const [y, n, count] = [k, k + 1, k + 2];
  const step = (i: number): number => k + 3 + i;
  const params = 2 * k + 3 + (strided ? 1 : 0);
  const code = new Code(params);
  const r = code.local(I32);
  code.block().loop();
  code.get(r).get(count).i32GeS().brIf(1);
  for (let i = 0; i <= k + 1; i++) code.get(i);
  code.call(0);
  for (let i = 0; i < k; i++) code.get(i).get(step(i)).i32Add().set(i);
  if (strided)
    code
      .get(y)
      .get(2 * k + 3)
      .i32Add()
      .set(y);
  else code.get(y).get(n).i32(2).i32Shl().i32Add().set(y);
  code.get(r).i32(1).i32Add().set(r);
  code.br(0).end().end();
  return { name: strided ? 'box' : 'rows', params: new Array<ValType>(params).fill(I32), results: [], code };
}

const MAX_CACHED = 1024;
/**
 * Instances per memory of the modules compiled per thread (`sharedCompiledModule`), keyed by the code a
 * description emits (`codeKey`), not its words: one module serves every shape and stride of a chain.
 */
const instances = new WeakMap<LinearMemory, Map<string, { rows: RowsFunction; box: RowsFunction | undefined }>>();
const descriptions = new Map<string, KernelDescription>();

/** A description from its words, validated once per process (`where` names it in errors). */
export function cachedDescription(words: readonly number[], key: string, where: string): KernelDescription {
  let d = descriptions.get(key);
  if (!d) {
    d = decodeKernelDescription(words, where);
    if (descriptions.size >= MAX_CACHED) descriptions.clear();
    descriptions.set(key, d);
  }
  return d;
}

/**
 * What the emitted module of a description depends on: its kind, whether each input reads its rows
 * contiguously or as one repeated element (last-dim stride 1 or 0), its constants (as float32 bits,
 * so −0 is not 0), instructions and output register. Shape, sizes and outer strides are call
 * arguments of `rows`/`box`, so descriptions that differ only in those share a module.
 */
export function codeKey(d: KernelDescription): string {
  const last = d.shape.length - 1;
  const constants = new Int32Array(Float32Array.from(d.constants).buffer);
  return [
    d.kind,
    d.inputs.map((x) => (x.strides[last] === 0 ? 's' : 'v')).join(''),
    constants.join(','),
    d.instructions.map((i) => `${i.op}.${i.a}.${i.b}`).join(','),
    d.output,
  ].join('|');
}

type CompiledRun = { rows: RowsFunction; box: RowsFunction | undefined };
/** Per memory, per description object: its compiled run (descriptions are cached, so tiles find it without building `codeKey`). */
const byDescription = new WeakMap<LinearMemory, WeakMap<KernelDescription, CompiledRun | null>>();

function compiledModule(memory: LinearMemory, d: KernelDescription): CompiledRun | undefined {
  let known = byDescription.get(memory);
  if (!known) {
    known = new WeakMap();
    byDescription.set(memory, known);
  }
  let run = known.get(d);
  if (run === undefined) {
    run = compileModule(memory, d) ?? null;
    known.set(d, run);
  }
  return run ?? undefined;
}

function compileModule(memory: LinearMemory, d: KernelDescription): CompiledRun | undefined {
  if (!wasm || !hasWasmSimd() || !emittable(d)) return undefined;
  let perMemory = instances.get(memory);
  if (!perMemory) {
    perMemory = new Map();
    instances.set(memory, perMemory);
  }
  const key = codeKey(d);
  const known = perMemory.get(key);
  if (known) return known;
  const shared = typeof SharedArrayBuffer !== 'undefined' && memory.buffer instanceof SharedArrayBuffer;
  const moduleKey = `generated:${shared ? 's' : 'u'}${key}`;
  const module = sharedCompiledModule(moduleKey, () => emitDescription(d, shared));
  const exports = new wasm.Instance(module, { env: { memory } }).exports;
  // a row-reduction module has no box: an epilogue is elementwise
  const run = { rows: exports.rows as RowsFunction, box: exports.box as RowsFunction | undefined };
  perMemory.set(key, run);
  return run;
}

/** Modules compiled in this process so far (what `codeKey` shares; for tests). */
export const compiledModuleCount = (): number => compiledModuleEntries().filter(([key]) => key.startsWith('generated:')).length;

const compiledRows = (memory: LinearMemory, d: KernelDescription): RowsFunction | undefined => compiledModule(memory, d)?.rows;

/**
 * The emitted `box` of a description (see `rowsLoop`), undefined when the emitter does not cover
 * it or there is no WebAssembly SIMD.
 */
export const compiledBox = (memory: LinearMemory, d: KernelDescription): RowsFunction | undefined => compiledModule(memory, d)?.box;

/** Rows [r0, r1) of a description over tensors at byte addresses: the emitted row function, else the interpreter. */
function runRows(memory: LinearMemory, d: KernelDescription, addresses: readonly number[], r0: number, r1: number): void {
  const k = d.inputs.length;
  const y = addresses[k] as number;
  const row = compiledRows(memory, d);
  if (!row) {
    const view = (address: number, n: number) => new Float32Array(memory.buffer, address, n);
    const ins = d.inputs.map((x, i) => view(addresses[i] as number, x.size));
    interpretDescription(d, ins, view(y, kernelElements(d)), r0, r1);
    return;
  }
  const rank = d.shape.length;
  const last = d.shape[rank - 1] as number;
  const args = new Array<number>(2 * k + 3);
  args[k + 1] = last;
  if (rank === 1) {
    // one run of the whole (single-row) tensor
    for (let i = 0; i < k; i++) args[i] = addresses[i] as number;
    args[k] = y;
    args[k + 2] = r1 - r0;
    for (let i = 0; i < k; i++) args[k + 3 + i] = 0;
    row(...args);
    return;
  }
  // rows [r0, r1) in runs along dim rank-2; the outer index (dims 0..rank-2) steps per run
  const inner = rank - 2;
  const index = new Array<number>(rank - 1).fill(0);
  let rest = r0;
  for (let dim = inner; dim >= 0; dim--) {
    index[dim] = rest % (d.shape[dim] as number);
    rest = Math.floor(rest / (d.shape[dim] as number));
  }
  const base = d.inputs.map((x) => index.reduce((sum, v, dim) => sum + v * (x.strides[dim] as number), 0));
  for (let i = 0; i < k; i++) args[k + 3 + i] = (d.inputs[i]?.strides[inner] as number) * 4;
  const innerSize = d.shape[inner] as number;
  for (let r = r0; r < r1; ) {
    const count = Math.min(r1 - r, innerSize - (index[inner] as number));
    for (let i = 0; i < k; i++) args[i] = (addresses[i] as number) + (base[i] as number) * 4;
    args[k] = y + r * last * 4;
    args[k + 2] = count;
    row(...args);
    r += count;
    for (let i = 0; i < k; i++) base[i] = (base[i] as number) + count * (d.inputs[i]?.strides[inner] as number);
    index[inner] = (index[inner] as number) + count;
    for (let dim = inner; dim >= 0 && (index[dim] as number) >= (d.shape[dim] as number); dim--) {
      for (let i = 0; i < k; i++) base[i] = (base[i] as number) - (index[dim] as number) * (d.inputs[i]?.strides[dim] as number);
      index[dim] = 0;
      if (dim === 0) break;
      index[dim - 1] = (index[dim - 1] as number) + 1;
      for (let i = 0; i < k; i++) base[i] = (base[i] as number) + (d.inputs[i]?.strides[dim - 1] as number);
    }
  }
}

/**
 * Tile of a generated kernel: `[r0, r1, addressCount, …addresses, …description words]`. The
 * description travels in the tile (numbers only), so a worker validates and compiles it once and
 * then finds it in its cache.
 */
export const generatedElementwiseTile = tileFunction('generated-elementwise', (memory, args) => {
  const count = args[2] as number;
  const words = args.slice(3 + count);
  const key = words.join(',');
  const d = cachedDescription(words, key, 'tile');
  if (count !== d.inputs.length + 1) throw new RangeError(`generated-elementwise tile: ${count} addresses for ${d.inputs.length} inputs`);
  runRows(memory, d, args.slice(3, 3 + count), args[0] as number, args[1] as number);
});

/** `tsge::FusedElementwise` on device memory: the emitted SIMD kernel, split by rows across threads. */
export function generatedElementwiseKernel(reference: KernelV1): KernelV1 {
  return defineKernel({
    opType: FUSED_ELEMENTWISE,
    domain: TSGE_DOMAIN,
    name: 'wasm-simd',
    dtypes: ['float32'],
    parallel: true,
    compute: (ctx: KernelContextV1) => {
      const memory = ctx.memory;
      const inputs = Array.from({ length: ctx.inputCount }, (_, i) => ctx.tensor(i));
      if (!memory || inputs.some((x) => !x || !inMemory(memory, x))) return reference.compute(ctx);
      // a run-time-sized description resolved for this run's shapes (static words otherwise)
      const { description: d, words, dims } = elementwiseTask(ctx);
      const y = ctx.output(0, dims, 'float32');
      if (!inMemory(memory, y)) return reference.compute(ctx);
      const ys = y.data as Float32Array;
      const xs = inputs.map((x) => x?.data as Float32Array);
      checkOperands(d, xs, ys, ctx.nodeName);
      if (xs.some((x) => x.byteOffset < ys.byteOffset + ys.byteLength && ys.byteOffset < x.byteOffset + x.byteLength))
        return reference.compute(ctx);
      const addresses = [...xs.map((x) => x.byteOffset), ys.byteOffset];
      const rows = descriptionRows(d);
      const last = d.shape[d.shape.length - 1] as number;
      const threads = ctx.parallel?.threads ?? 1;
      const ranges = splitRange(rows, threads, 1, last * d.instructions.length, 1 << 16);
      const tiles = ranges.map(([r0, r1]) => [r0, r1, addresses.length, ...addresses, ...words]);
      runTiles(memory, ctx.parallel, generatedElementwiseTile, tiles);
    },
  });
}
