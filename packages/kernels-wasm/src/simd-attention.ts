import type { HostTensor, KernelContextV1, KernelV1, LinearMemory } from '@tsge/metadef';
import { defineKernel } from '@tsge/kernels-js/kernel-support';
import { attentionShapesProblem } from '@tsge/ops/kernel-support';
import { attentionRows } from './attention-module.js';
import { inMemory } from './simd-matmul.js';
import { threadWorkspace } from './thread-workspace.js';
import { type NumberTuple, runTiles, tileFunction } from './tiles.js';

/** [batch, heads, seq, size] of a 4-D operand, or of a 3-D [batch, seq, heads · size] one. */
interface Heads {
  readonly batch: number;
  readonly heads: number;
  readonly seq: number;
  readonly size: number;
  /** Bytes from one sequence row of a head to the next. */
  readonly rowStride: number;
  /** Byte offset of row 0 of head (b, h). */
  at(b: number, h: number): number;
}

function heads(t: HostTensor, heads3d: number): Heads | undefined {
  const base = (t.data as Float32Array).byteOffset;
  if (t.dims.length === 4) {
    const [batch, heads, seq, size] = t.dims as [number, number, number, number];
    return { batch, heads, seq, size, rowStride: size * 4, at: (b, h) => base + (b * heads + h) * seq * size * 4 };
  }
  if (t.dims.length !== 3 || heads3d <= 0 || (t.dims[2] as number) % heads3d !== 0) return undefined;
  const [batch, seq, hidden] = t.dims as [number, number, number];
  const size = hidden / heads3d;
  return { batch, heads: heads3d, seq, size, rowStride: hidden * 4, at: (b, h) => base + (b * seq * hidden + h * size) * 4 };
}

/** Element strides of a float mask broadcast to [batch, heads, q, keys]; undefined unless its last axis is exactly `keys`. */
function maskStrides(mask: HostTensor, keys: number): [number, number, number] | undefined {
  const dims = mask.dims;
  if (mask.type !== 'float32' || dims.length === 0 || dims.length > 4 || dims[dims.length - 1] !== keys) return undefined;
  const strides = [0, 0, 0, 0];
  let s = 1;
  for (let a = dims.length - 1; a >= 0; a--) {
    const d = dims[a] as number;
    strides[4 - dims.length + a] = d === 1 ? 0 : s;
    s *= d;
  }
  return [strides[0] as number, strides[1] as number, strides[2] as number];
}

const given = (ctx: KernelContextV1, i: number) => i < ctx.inputCount && ctx.tensor(i) !== undefined;

/**
 * ONNX Attention on float32 in device memory: a streaming-softmax kernel (attention-module.ts)
 * that never forms the score matrix, tiles of query rows of one (batch, head) split across threads;
 * kv heads shared by q_heads / kv_heads query heads, causal and additive float masks. A KV cache,
 * extra outputs, softcap, boolean or padded masks, nonpad lengths and host memory go to the
 * reference kernel.
 */
export function simdAttentionKernel(reference: KernelV1): KernelV1 {
  return defineKernel({
    opType: 'Attention',
    name: 'wasm-simd',
    dtypes: ['float32'],
    parallel: true,
    compute: (ctx: KernelContextV1) => {
      const memory = ctx.memory;
      const [qt, kt, vt] = [ctx.tensor(0), ctx.tensor(1), ctx.tensor(2)];
      const mask = given(ctx, 3) ? ctx.tensor(3) : undefined;
      const simple = !given(ctx, 4) && !given(ctx, 5) && !given(ctx, 6) && ctx.outputCount === 1 && ctx.attrs.float('softcap', 0) === 0;
      if (!memory || !simple || !qt || !kt || !vt || [qt, kt, vt].some((t) => t.type !== 'float32') || !threadWorkspace(memory))
        return reference.compute(ctx);
      if (!inMemory(memory, qt, kt, vt, ...(mask ? [mask] : []))) return reference.compute(ctx);
      const problem = attentionShapesProblem({
        q: qt.dims,
        k: kt.dims,
        v: vt.dims,
        mask: mask?.dims,
        qHeads3d: ctx.attrs.int('q_num_heads', 0),
        kvHeads3d: ctx.attrs.int('kv_num_heads', 0),
      });
      const q = heads(qt, ctx.attrs.int('q_num_heads', 0));
      const k = heads(kt, ctx.attrs.int('kv_num_heads', 0));
      const v = heads(vt, ctx.attrs.int('kv_num_heads', 0));
      // the reference reports malformed operands with its own messages
      if (problem || !q || !k || !v || k.heads === 0 || q.heads % k.heads !== 0) return reference.compute(ctx);
      const strides = mask ? maskStrides(mask, k.seq) : undefined;
      if ((mask && !strides) || k.seq === 0) return reference.compute(ctx);
      const threeD = qt.dims.length === 3;
      const yt = ctx.output(0, threeD ? [q.batch, q.seq, q.heads * v.size] : [q.batch, q.heads, q.seq, v.size], 'float32');
      if (!inMemory(memory, yt)) return reference.compute(ctx);
      const y = heads(yt, q.heads) as Heads;
      const scale = ctx.attrs.float('scale', 1 / Math.sqrt(q.size));
      const causal = ctx.attrs.int('is_causal', 0) !== 0;
      const reps = q.heads / k.heads;
      const threads = ctx.parallel?.threads ?? 1;
      // about four tiles a thread: whole heads when there are enough, else row ranges of each
      const perHead = Math.min(q.seq, Math.max(1, Math.ceil((threads > 1 ? threads * 4 : 1) / (q.batch * q.heads))));
      const rowsPerTile = Math.ceil(q.seq / perHead);
      const maskAt = mask ? (mask.data as Float32Array).byteOffset : -1;
      const tiles: number[][] = [];
      for (let b = 0; b < q.batch; b++)
        for (let h = 0; h < q.heads; h++) {
          const kvh = Math.floor(h / reps);
          for (let r0 = 0; r0 < q.seq; r0 += rowsPerTile) {
            const rows = Math.min(rowsPerTile, q.seq - r0);
            const [sb, sh, si] = strides ?? [0, 0, 0];
            tiles.push([
              q.at(b, h) + r0 * q.rowStride,
              k.at(b, kvh),
              v.at(b, kvh),
              mask ? maskAt + (b * sb + h * sh + r0 * si) * 4 : -1,
              y.at(b, h) + r0 * y.rowStride,
              rows,
              k.seq,
              q.size,
              v.size,
              scale,
              q.rowStride,
              k.rowStride,
              v.rowStride,
              y.rowStride,
              si * 4,
              causal ? r0 : -1,
            ]);
          }
        }
      runTiles(memory, ctx.parallel, attentionTile, tiles);
    },
  });
}

/** Tile: query rows of one (batch, head) against all its keys, scores staged in this thread's workspace. */
export const attentionTile = tileFunction('wasm.attentionRows', (memory: LinearMemory, t: readonly number[]) => {
  const [q, k, v, mask, y, ...rest] = t as NumberTuple<16>;
  const run = attentionRows(memory);
  const workspace = threadWorkspace(memory);
  if (!run || !workspace) throw new Error('attention tile needs WebAssembly SIMD and a bound thread workspace');
  run(q, k, v, mask, y, workspace.offset, ...rest);
});
