import type { LinearMemory } from '@tsge/metadef';
import { Code, F32, type FunctionDef, I32, V128 } from './emitter.js';
import { emitExpNonPositive } from './elementwise-module.js';
import { extraModule } from './extra-modules.js';
import { hasRelaxedSimd } from './kernel-modules.js';

/** Keys scored per block: the only scores that exist at once are one block of one query row. */
export const ATTENTION_KEY_BLOCK = 64;

/**
 * Generates `attentionRows(q, k, v, mask, y, scores, rows, keys, d, dv, scale, qStride, kStride,
 * vStride, yStride, maskStride, causal)`: for each of `rows` query rows (byte strides), attention
 * over `keys` key/value rows with an online softmax. Keys go in blocks of ATTENTION_KEY_BLOCK: the
 * block's scores q·k·scale (+ mask row, when `mask` ≥ 0) go to `scores` (a 256-byte scratch); the
 * running maximum m and sum l are updated, the output row (used as the accumulator) is rescaled
 * by e^(m_old − m_new), and Σ e^(s − m)·v is added; the row is divided by l at the end. With
 * `causal` ≥ 0, row r sees keys [0, r + causal]. A row whose keys are all masked gives NaN (0/0),
 * as the reference's softmax of −∞ does. Head sizes that are not multiples of 4 end in scalar steps.
 */
function attentionRowsFunction(relaxed: boolean, cache: AttentionCache): FunctionDef {
  const [q, k, v, mask, y, scores, rows, keys, d, dv, scale, qStride, kStride, vStride, yStride, maskStride, causal] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
  ] as const;
  const code = new Code(17);
  const row = code.local(I32);
  const limit = code.local(I32);
  const kb = code.local(I32);
  const n = code.local(I32);
  const j = code.local(I32);
  const c = code.local(I32);
  const dBytes = code.local(I32);
  const dvBytes = code.local(I32);
  // the vector part of a row (whole f32x4s); the rest goes one float at a time
  const dVec = code.local(I32);
  const dvVec = code.local(I32);
  const fs = code.local(F32);
  const vRow = code.local(I32);
  const s = code.local(F32);
  const m = code.local(F32);
  const l = code.local(F32);
  const bmax = code.local(F32);
  const acc = code.local(V128);
  const pv = code.local(V128);
  const e = code.local(V128);
  const env = { temp: () => code.local(V128) };
  // a float16 cache: element byte offsets are half those of the f32 query and output rows
  const half = cache === 'float16';
  const bits = code.local(V128);
  const magnitude = code.local(V128);
  /** Widens the i32x4 of float16 bit patterns on the stack to the f32x4 they encode (exactly). */
  const widen = (): void => {
    // exponent and mantissa shifted into f32 place and rebiased by ×2^112 (subnormals
    // included); exponent 31 (inf, NaN) gets f32's all-ones exponent; the sign moves to bit 31
    code.set(bits);
    code.get(bits).i32x4Const(0x7fff).v128And().set(magnitude);
    code
      .get(magnitude)
      .i32(13)
      .i32x4Shl()
      .f32x4Const(2 ** 112)
      .f32x4Mul();
    code.get(magnitude).i32x4Const(0x7bff).i32x4GtS().i32x4Const(0x7f800000).v128And().v128Or();
    code.get(bits).i32x4Const(0x8000).v128And().i32(16).i32x4Shl().v128Or();
  };
  /** Pushes the cache byte offset of the element at f32 byte offset `offset` of a row. */
  const cacheOffset = (offset: number): void => {
    code.get(offset);
    if (half) code.i32(1).i32ShrS();
  };
  /** Pushes the cache address of the element at f32 byte offset `offset` of the row at `base`. */
  const cacheAt = (base: number, offset: number): void => {
    code.get(base);
    cacheOffset(offset);
    code.i32Add();
  };
  /** Loads four cache elements as f32x4 from the address on the stack. */
  const loadVector = (): void => {
    if (!half) {
      code.v128Load();
      return;
    }
    code.v128Load16x4U();
    widen();
  };
  /** Loads one cache element as f32 from the address on the stack. */
  const loadScalar = (): void => {
    if (!half) {
      code.f32Load();
      return;
    }
    code.i32Load16U().i32x4Splat();
    widen();
    code.f32x4ExtractLane(0);
  };

  /** for (i = from; i < to; i += step) body */
  const loop = (i: number, from: () => void, to: number, step: number, body: () => void): void => {
    from();
    code.set(i);
    code.block().loop();
    code.get(i).get(to).i32GeS().brIf(1);
    body();
    code.get(i).i32(step).i32Add().set(i);
    code.br(0).end().end();
  };
  const hsum = (vector: number): void => {
    code.get(vector).f32x4ExtractLane(0).get(vector).f32x4ExtractLane(1).f32Add();
    code.get(vector).f32x4ExtractLane(2).get(vector).f32x4ExtractLane(3).f32Add().f32Add();
  };
  /** e^x of the f32 on the stack (x ≤ 0), left on the stack. */
  const expScalar = (): void => {
    code.f32x4Splat().set(e);
    emitExpNonPositive(code, env, e, e);
    code.get(e).f32x4ExtractLane(0);
  };
  /** y row *= the f32 on the stack. */
  const scaleRow = (): void => {
    code.tee(fs).f32x4Splat().set(pv);
    loop(
      c,
      () => code.i32(0),
      dvVec,
      16,
      () => code.get(y).get(c).i32Add().get(y).get(c).i32Add().v128Load().get(pv).f32x4Mul().v128Store(),
    );
    loop(
      c,
      () => code.get(dvVec),
      dvBytes,
      4,
      () => code.get(y).get(c).i32Add().get(y).get(c).i32Add().f32Load().get(fs).f32Mul().f32Store(),
    );
  };

  const kRows = [code.local(I32), code.local(I32), code.local(I32), code.local(I32)];
  const accs = [acc, code.local(V128), code.local(V128), code.local(V128)];
  const qv = code.local(V128);
  /** Scores of keys kb + j … kb + j + count − 1 into the scratch, and the block maximum. */
  const scoreKeys = (count: number): void => {
    code
      .get(kb)
      .get(j)
      .i32Add()
      .get(kStride)
      .i32Mul()
      .get(k)
      .i32Add()
      .set(kRows[0] as number);
    for (let i = 1; i < count; i++)
      code
        .get(kRows[i - 1] as number)
        .get(kStride)
        .i32Add()
        .set(kRows[i] as number);
    for (let i = 0; i < count; i++) code.f32x4Const(0).set(accs[i] as number);
    loop(
      c,
      () => code.i32(0),
      dVec,
      16,
      () => {
        code.get(q).get(c).i32Add().v128Load().set(qv);
        for (let i = 0; i < count; i++) {
          const a = accs[i] as number;
          if (relaxed) {
            code.get(qv);
            cacheAt(kRows[i] as number, c);
            loadVector();
            code.get(a).f32x4RelaxedMadd().set(a);
          } else {
            code.get(a).get(qv);
            cacheAt(kRows[i] as number, c);
            loadVector();
            code.f32x4Mul().f32x4Add().set(a);
          }
        }
      },
    );
    for (let i = 0; i < count; i++) {
      hsum(accs[i] as number);
      code.set(s);
      loop(
        c,
        () => code.get(dVec),
        dBytes,
        4,
        () => {
          code.get(s).get(q).get(c).i32Add().f32Load();
          cacheAt(kRows[i] as number, c);
          loadScalar();
          code.f32Mul().f32Add().set(s);
        },
      );
      code.get(s).get(scale).f32Mul().set(s);
      code.get(mask).i32(0).i32GeS().if();
      code.get(s).get(mask).get(kb).get(j).i32Add().i32(i).i32Add().i32(2).i32Shl().i32Add().f32Load().f32Add().set(s);
      code.end();
      code.get(scores).get(j).i32(i).i32Add().i32(2).i32Shl().i32Add().get(s).f32Store();
      code.get(bmax).get(s).f32Max().set(bmax);
    }
  };

  code.get(d).i32(2).i32Shl().set(dBytes);
  code.get(dv).i32(2).i32Shl().set(dvBytes);
  code.get(d).i32(-4).i32And().i32(2).i32Shl().set(dVec);
  code.get(dv).i32(-4).i32And().i32(2).i32Shl().set(dvVec);
  code.i32(0).set(row);
  code.block().loop();
  code.get(row).get(rows).i32GeS().brIf(1);
  // keys this row sees
  code.get(keys).set(limit);
  code.get(causal).i32(0).i32GeS().if();
  code.get(row).get(causal).i32Add().i32(1).i32Add().set(n);
  code.get(n).get(limit).i32LtS().if().get(n).set(limit).end();
  code.end();
  code.f32(Number.NEGATIVE_INFINITY).set(m);
  code.f32(0).set(l);
  // zeroed by stores: the output may hold anything (a NaN times 0 stays NaN)
  loop(
    c,
    () => code.i32(0),
    dvVec,
    16,
    () => code.get(y).get(c).i32Add().f32x4Const(0).v128Store(),
  );
  loop(
    c,
    () => code.get(dvVec),
    dvBytes,
    4,
    () => code.get(y).get(c).i32Add().f32(0).f32Store(),
  );
  loop(
    kb,
    () => code.i32(0),
    limit,
    ATTENTION_KEY_BLOCK,
    () => {
      code.get(limit).get(kb).i32Sub().set(n);
      code.get(n).i32(ATTENTION_KEY_BLOCK).i32GtS().if().i32(ATTENTION_KEY_BLOCK).set(n).end();
      // scores of the block and their maximum, four keys a step (q is loaded once for the four)
      code.f32(Number.NEGATIVE_INFINITY).set(bmax);
      code.i32(0).set(j);
      code.block().loop();
      code.get(j).i32(4).i32Add().get(n).i32GtS().brIf(1);
      scoreKeys(4);
      code.get(j).i32(4).i32Add().set(j);
      code.br(0).end().end();
      code.block().loop();
      code.get(j).get(n).i32GeS().brIf(1);
      scoreKeys(1);
      code.get(j).i32(1).i32Add().set(j);
      code.br(0).end().end();
      // a block of only masked keys changes nothing
      code.get(bmax).f32(Number.NEGATIVE_INFINITY).f32Gt().if();
      // lanes past the block's end score −∞, so their exponentials are 0
      code.get(n).set(j);
      code.block().loop();
      code.get(j).i32(3).i32And().i32Eqz().brIf(1);
      code.get(scores).get(j).i32(2).i32Shl().i32Add().f32(Number.NEGATIVE_INFINITY).f32Store();
      code.get(j).i32(1).i32Add().set(j);
      code.br(0).end().end();
      // rescale the running row and sum to the new maximum
      code.get(m).get(bmax).f32Max().set(s);
      code.get(m).get(s).f32Sub();
      expScalar();
      code.set(bmax);
      code.get(s).set(m);
      code.get(l).get(bmax).f32Mul().set(l);
      code.get(bmax);
      scaleRow();
      // exponentials, four at a time
      code.get(m).f32x4Splat().set(pv);
      code.f32x4Const(0).set(acc);
      loop(
        j,
        () => code.i32(0),
        n,
        4,
        () => {
          code.get(scores).get(j).i32(2).i32Shl().i32Add().v128Load().get(pv).f32x4Sub().set(e);
          emitExpNonPositive(code, env, e, e);
          code.get(scores).get(j).i32(2).i32Shl().i32Add().get(e).v128Store();
          code.get(acc).get(e).f32x4Add().set(acc);
        },
      );
      code.get(l);
      hsum(acc);
      code.f32Add().set(l);
      // y += Σ p_j · v_j, a 4-wide column of y held in a register across the block's keys
      loop(
        c,
        () => code.i32(0),
        dvVec,
        16,
        () => {
          code.get(y).get(c).i32Add().v128Load().set(acc);
          code.get(kb).get(vStride).i32Mul().get(v).i32Add();
          cacheOffset(c);
          code.i32Add().set(vRow);
          loop(
            j,
            () => code.i32(0),
            n,
            1,
            () => {
              code.get(scores).get(j).i32(2).i32Shl().i32Add().v128Load32Splat().get(vRow);
              loadVector();
              if (relaxed) code.get(acc).f32x4RelaxedMadd().set(acc);
              else code.f32x4Mul().get(acc).f32x4Add().set(acc);
              code.get(vRow).get(vStride).i32Add().set(vRow);
            },
          );
          code.get(y).get(c).i32Add().get(acc).v128Store();
        },
      );
      loop(
        c,
        () => code.get(dvVec),
        dvBytes,
        4,
        () => {
          code.get(y).get(c).i32Add().f32Load().set(fs);
          code.get(kb).get(vStride).i32Mul().get(v).i32Add();
          cacheOffset(c);
          code.i32Add().set(vRow);
          loop(
            j,
            () => code.i32(0),
            n,
            1,
            () => {
              code.get(fs).get(scores).get(j).i32(2).i32Shl().i32Add().f32Load().get(vRow);
              loadScalar();
              code.f32Mul().f32Add().set(fs);
              code.get(vRow).get(vStride).i32Add().set(vRow);
            },
          );
          code.get(y).get(c).i32Add().get(fs).f32Store();
        },
      );
      code.end();
    },
  );
  code.f32(1).get(l).f32Div();
  scaleRow();
  code.get(q).get(qStride).i32Add().set(q);
  code.get(y).get(yStride).i32Add().set(y);
  code.get(mask).i32(0).i32GeS().if().get(mask).get(maskStride).i32Add().set(mask).end();
  code.get(row).i32(1).i32Add().set(row);
  code.br(0).end().end();
  const params = [I32, I32, I32, I32, I32, I32, I32, I32, I32, I32, F32, I32, I32, I32, I32, I32, I32] as const;
  return { name: cache === 'float32' ? 'attentionRows' : 'attentionRowsF16', params: [...params], results: [], code };
}

export type AttentionRows = (...args: number[]) => void;

/** The dtype of the key and value rows: float16 is widened to f32 lanes as it is read. */
export type AttentionCache = 'float32' | 'float16';

const attentionExports = extraModule('attention', () =>
  (['float32', 'float16'] as const).map((cache) => attentionRowsFunction(hasRelaxedSimd(), cache)),
);

/**
 * The SIMD attention rows over `memory` for keys and values of `cache` dtype (strides in bytes of
 * that dtype; queries, scores and output stay float32); undefined without SIMD.
 */
export function attentionRows(memory: LinearMemory, cache: AttentionCache = 'float32'): AttentionRows | undefined {
  const exports = attentionExports(memory);
  return exports?.[cache === 'float32' ? 'attentionRows' : 'attentionRowsF16'] as AttentionRows | undefined;
}
