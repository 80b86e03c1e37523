import type { LinearMemory } from '@tsge/metadef';
import { Code, F32, type FunctionDef, I32, V128 } from './emitter.js';
import { extraModule } from './extra-modules.js';

const I8X16_SHR_U = 0x6d;
const I16X8_EXTEND_LOW_U = 0x89;
const I16X8_EXTEND_HIGH_U = 0x8a;
const I32X4_EXTEND_LOW_U = 0xa9;
const I32X4_EXTEND_HIGH_U = 0xaa;
const F32X4_CONVERT_S = 0xfa;
const I32_SHR_U = 0x76;
const I32_LOAD8_U = 0x2d;
/** Columns of B one step of the main loop dequantizes against the same loads of A. */
const GROUP = 4;
/** Rows of A one pass multiplies with the same widened nibbles of B (M ≥ ROWS: prefill). */
const ROWS = 4;

/**
 * Generates `nbits4(aPerm, aSum, M, b, scales, zp, y, ldy, n0, n1, blocks, cpb)`: for rows m < M
 * and columns n0 ≤ n < n1, y[m·ldy + n] = Σ_blocks scale · (Σ a·q − zp · Σ a), the 4-bit weights q
 * unpacked from B's bytes on the fly (16 bytes = 32 weights a step; low nibbles are the even
 * elements, high nibbles the odd ones). A comes permuted to match: per 16-byte chunk, the 16 even
 * elements then the 16 odd ones (`aPerm`), with per-block sums (`aSum`). Zero points are packed
 * nibbles per row (`zp`, 0 for the default 8). `cpb` is chunks per block (block_size / 32).
 * Columns go four at a time (each load of A serves four rows of B), the rest one at a time; rows
 * go four at a time (each widened chunk of B serves four rows of A), the rest one at a time.
 * The instructions the shared emitter lacks (integer widening, shifts, byte loads) are encoded here.
 */
function nbits4Function(): FunctionDef {
  const [aPerm, aSum, M, b, scales, zp, y, ldy, n0, n1, blocks, cpb] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11];
  const code = new Code(12);
  const simd = (opcode: number): Code => {
    code.bytes.push(0xfd);
    for (let v = opcode; ; ) {
      const byte = v & 0x7f;
      v >>>= 7;
      code.bytes.push(v ? byte | 0x80 : byte);
      if (!v) break;
    }
    return code;
  };
  const m = code.local(I32);
  const n = code.local(I32);
  const kb = code.local(I32);
  const c = code.local(I32);
  const rowBytes = code.local(I32);
  const aRowBytes = code.local(I32);
  const zpRow = code.local(I32);
  const aVec = code.local(V128);
  const scale = code.local(F32);
  const zero = code.local(F32);
  const ap = Array.from({ length: ROWS }, () => code.local(I32));
  const blockSum = Array.from({ length: ROWS }, () => code.local(F32));
  const bp = Array.from({ length: GROUP }, () => code.local(I32));
  const bytes = Array.from({ length: GROUP }, () => code.local(V128));
  const half = Array.from({ length: GROUP }, () => code.local(V128));
  const weight = Array.from({ length: GROUP }, () => code.local(V128));
  // per row r and column j
  const acc = Array.from({ length: ROWS }, () => Array.from({ length: GROUP }, () => code.local(V128)));
  const dot = Array.from({ length: ROWS }, () => Array.from({ length: GROUP }, () => code.local(V128)));
  const corr = Array.from({ length: ROWS }, () => Array.from({ length: GROUP }, () => code.local(F32)));
  const at = (list: readonly number[][], r: number, j: number): number => list[r]?.[j] as number;
  // rowBytes = blocks·cpb·16, aRowBytes = 8·rowBytes, zpRow = (blocks + 1) / 2
  code.get(blocks).get(cpb).i32Mul().i32(4).i32Shl().set(rowBytes);
  code.get(rowBytes).i32(3).i32Shl().set(aRowBytes);
  code.get(blocks).i32(1).i32Add().i32(1);
  code.bytes.push(I32_SHR_U);
  code.set(zpRow);

  /**
   * dot[r][j] += f32(widen(half_j)) · A_r for the 4 f32x4 of one 16-lane half of A at `aOffset`:
   * each column's nibbles are widened once and serve all `rows` rows (the panel reuse of prefill).
   */
  const madd = (cols: number, rows: number, aOffset: number): void => {
    for (const [extend16, extend32, part] of [
      [I16X8_EXTEND_LOW_U, I32X4_EXTEND_LOW_U, 0],
      [I16X8_EXTEND_LOW_U, I32X4_EXTEND_HIGH_U, 16],
      [I16X8_EXTEND_HIGH_U, I32X4_EXTEND_LOW_U, 32],
      [I16X8_EXTEND_HIGH_U, I32X4_EXTEND_HIGH_U, 48],
    ] as const) {
      for (let j = 0; j < cols; j++) {
        code.get(half[j] as number);
        simd(extend16);
        simd(extend32);
        simd(F32X4_CONVERT_S);
        code.set(weight[j] as number);
      }
      for (let r = 0; r < rows; r++) {
        code
          .get(ap[r] as number)
          .v128Load(aOffset + part)
          .set(aVec);
        for (let j = 0; j < cols; j++) {
          code
            .get(at(dot, r, j))
            .get(weight[j] as number)
            .get(aVec)
            .f32x4Mul()
            .f32x4Add()
            .set(at(dot, r, j));
        }
      }
    }
  };

  /** The body for columns n .. n + cols - 1 of rows m .. m + rows - 1 (n advanced by cols afterwards). */
  const columns = (cols: number, rows: number): void => {
    for (let j = 0; j < cols; j++) {
      for (let r = 0; r < rows; r++) {
        code.f32x4Const(0).set(at(acc, r, j));
        code.f32(0).set(at(corr, r, j));
      }
      code
        .get(b)
        .get(n)
        .i32(j)
        .i32Add()
        .get(rowBytes)
        .i32Mul()
        .i32Add()
        .set(bp[j] as number);
    }
    for (let r = 0; r < rows; r++)
      code
        .get(aPerm)
        .get(m)
        .i32(r)
        .i32Add()
        .get(aRowBytes)
        .i32Mul()
        .i32Add()
        .set(ap[r] as number);
    code.i32(0).set(kb);
    code.block().loop();
    code.get(kb).get(blocks).i32GeS().brIf(1);
    for (let r = 0; r < rows; r++) for (let j = 0; j < cols; j++) code.f32x4Const(0).set(at(dot, r, j));
    code.i32(0).set(c);
    code.block().loop();
    code.get(c).get(cpb).i32GeS().brIf(1);
    for (let j = 0; j < cols; j++) {
      code
        .get(bp[j] as number)
        .v128Load()
        .set(bytes[j] as number);
      code
        .get(bytes[j] as number)
        .i32x4Const(0x0f0f0f0f)
        .v128And()
        .set(half[j] as number);
    }
    madd(cols, rows, 0);
    for (let j = 0; j < cols; j++) {
      code.get(bytes[j] as number).i32(4);
      simd(I8X16_SHR_U);
      code.set(half[j] as number);
      code
        .get(bp[j] as number)
        .i32(16)
        .i32Add()
        .set(bp[j] as number);
    }
    madd(cols, rows, 64);
    for (let r = 0; r < rows; r++)
      code
        .get(ap[r] as number)
        .i32(128)
        .i32Add()
        .set(ap[r] as number);
    code.get(c).i32(1).i32Add().set(c);
    code.br(0).end().end();
    // acc[r][j] += dot[r][j] · scale[n+j, kb]; corr[r][j] += scale · zp · Σa (Σa of this block of row m+r)
    for (let r = 0; r < rows; r++)
      code
        .get(aSum)
        .get(m)
        .i32(r)
        .i32Add()
        .get(blocks)
        .i32Mul()
        .get(kb)
        .i32Add()
        .i32(2)
        .i32Shl()
        .i32Add()
        .f32Load()
        .set(blockSum[r] as number);
    for (let j = 0; j < cols; j++) {
      code.get(scales).get(n).i32(j).i32Add().get(blocks).i32Mul().get(kb).i32Add().i32(2).i32Shl().i32Add().f32Load().set(scale);
      code.f32(8).set(zero);
      code.get(zp).i32(0).i32Ne().if();
      code.get(zp).get(n).i32(j).i32Add().get(zpRow).i32Mul().i32Add().get(kb).i32(1);
      code.bytes.push(I32_SHR_U);
      code.i32Add();
      code.bytes.push(I32_LOAD8_U, 0x00, 0x00);
      code.get(kb).i32(1).i32And().i32(2).i32Shl();
      code.bytes.push(I32_SHR_U);
      code.i32(15).i32And().f32ConvertI32S().set(zero);
      code.end();
      for (let r = 0; r < rows; r++) {
        code
          .get(at(acc, r, j))
          .get(at(dot, r, j))
          .get(scale)
          .f32x4Splat()
          .f32x4Mul()
          .f32x4Add()
          .set(at(acc, r, j));
        code
          .get(at(corr, r, j))
          .get(scale)
          .get(zero)
          .f32Mul()
          .get(blockSum[r] as number)
          .f32Mul()
          .f32Add()
          .set(at(corr, r, j));
      }
    }
    code.get(kb).i32(1).i32Add().set(kb);
    code.br(0).end().end();
    // y[(m+r)·ldy + n + j] = Σ lanes(acc[r][j]) − corr[r][j]
    for (let r = 0; r < rows; r++)
      for (let j = 0; j < cols; j++) {
        const a = at(acc, r, j);
        code.get(y).get(m).i32(r).i32Add().get(ldy).i32Mul().get(n).i32Add().i32(j).i32Add().i32(2).i32Shl().i32Add();
        code.get(a).f32x4ExtractLane(0).get(a).f32x4ExtractLane(1).f32Add();
        code.get(a).f32x4ExtractLane(2).get(a).f32x4ExtractLane(3).f32Add().f32Add();
        code
          .get(at(corr, r, j))
          .f32Sub()
          .f32Store();
      }
    code.get(n).i32(cols).i32Add().set(n);
  };

  /** Rows m .. m + rows - 1 over all columns: groups of GROUP while they fit, then single columns. */
  const rowPass = (rows: number): void => {
    code.get(n0).set(n);
    code.block().loop();
    code.get(n).i32(GROUP).i32Add().get(n1).i32GtS().brIf(1);
    columns(GROUP, rows);
    code.br(0).end().end();
    code.block().loop();
    code.get(n).get(n1).i32GeS().brIf(1);
    columns(1, rows);
    code.br(0).end().end();
    code.get(m).i32(rows).i32Add().set(m);
  };

  // ROWS rows a pass while they fit (prefill), then one row at a time (decode, the rest)
  code.i32(0).set(m);
  code.block().loop();
  code.get(m).i32(ROWS).i32Add().get(M).i32GtS().brIf(1);
  rowPass(ROWS);
  code.br(0).end().end();
  code.block().loop();
  code.get(m).get(M).i32GeS().brIf(1);
  rowPass(1);
  code.br(0).end().end();
  return { name: 'nbits4', params: Array.from({ length: 12 }, () => I32), results: [], code };
}

export interface MatMulNBitsExports {
  nbits4(...args: number[]): void;
}

const exportsOf = extraModule('matmul-nbits', () => [nbits4Function()]);

/** The 4-bit MatMulNBits kernel instantiated over `memory` (cached per memory); undefined without SIMD. */
export function matMulNBitsModule(memory: LinearMemory): MatMulNBitsExports | undefined {
  return exportsOf(memory) as MatMulNBitsExports | undefined;
}
