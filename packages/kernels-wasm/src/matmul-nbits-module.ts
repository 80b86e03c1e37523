import type { LinearMemory } from '@tsge/metadef';
import { Code, F32, type FunctionDef, I32, V128 } from './emitter.js';
import { extraModule } from './extra-modules.js';

/**
 * Generates `nbits4(aPerm, aSum, M, b, scales, zp, y, ldy, n0, n1, blocks, cpb)`: for rows m < M
 * and columns n0 ≤ n < n1, y[m·ldy + n] = Σ_blocks scale · (Σ a·q − zp · Σ a), the 4-bit weights q
 * unpacked from B's bytes on the fly (16 bytes = 32 weights a step; low nibbles are the even
 * elements, high nibbles the odd ones). A comes permuted to match: per 16-byte chunk, the 16 even
 * elements then the 16 odd ones (`aPerm`), with per-block sums (`aSum`). Zero points are packed
 * nibbles per row (`zp`, 0 for the default 8). `cpb` is chunks per block (block_size / 32).
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
  const I8X16_SHR_U = 0x6d;
  const I16X8_EXTEND_LOW_U = 0x89;
  const I16X8_EXTEND_HIGH_U = 0x8a;
  const I32X4_EXTEND_LOW_U = 0xa9;
  const I32X4_EXTEND_HIGH_U = 0xaa;
  const F32X4_CONVERT_S = 0xfa;
  const m = code.local(I32);
  const n = code.local(I32);
  const kb = code.local(I32);
  const c = code.local(I32);
  const bp = code.local(I32);
  const ap = code.local(I32);
  const rowBytes = code.local(I32);
  const aRowBytes = code.local(I32);
  const zpRow = code.local(I32);
  const acc = code.local(V128);
  const dot = code.local(V128);
  const bytes = code.local(V128);
  const half = code.local(V128);
  const corr = code.local(F32);
  const scale = code.local(F32);
  const zero = code.local(F32);
  // rowBytes = blocks·cpb·16, aRowBytes = 8·rowBytes, zpRow = (blocks + 1) / 2
  code.get(blocks).get(cpb).i32Mul().i32(4).i32Shl().set(rowBytes);
  code.get(rowBytes).i32(3).i32Shl().set(aRowBytes);
  code.get(blocks).i32(1).i32Add().i32(1);
  code.bytes.push(0x76); // i32.shr_u
  code.set(zpRow);
  /** dot += f32(widen(part lanes)) · A[ap + offset] for the 4 f32x4 of one 16-lane half at `aOffset`. */
  const madd16 = (aOffset: number): void => {
    for (const [extend16, extend32, at] of [
      [I16X8_EXTEND_LOW_U, I32X4_EXTEND_LOW_U, 0],
      [I16X8_EXTEND_LOW_U, I32X4_EXTEND_HIGH_U, 16],
      [I16X8_EXTEND_HIGH_U, I32X4_EXTEND_LOW_U, 32],
      [I16X8_EXTEND_HIGH_U, I32X4_EXTEND_HIGH_U, 48],
    ] as const) {
      code.get(dot).get(half);
      simd(extend16);
      simd(extend32);
      simd(F32X4_CONVERT_S);
      code
        .get(ap)
        .v128Load(aOffset + at)
        .f32x4Mul()
        .f32x4Add()
        .set(dot);
    }
  };
  code.i32(0).set(m);
  code.block().loop();
  code.get(m).get(M).i32GeS().brIf(1);
  code.get(n0).set(n);
  code.block().loop();
  code.get(n).get(n1).i32GeS().brIf(1);
  code.f32x4Const(0).set(acc);
  code.f32(0).set(corr);
  code.get(b).get(n).get(rowBytes).i32Mul().i32Add().set(bp);
  code.get(aPerm).get(m).get(aRowBytes).i32Mul().i32Add().set(ap);
  code.i32(0).set(kb);
  code.block().loop();
  code.get(kb).get(blocks).i32GeS().brIf(1);
  code.f32x4Const(0).set(dot);
  code.i32(0).set(c);
  code.block().loop();
  code.get(c).get(cpb).i32GeS().brIf(1);
  code.get(bp).v128Load().set(bytes);
  code.get(bytes).i32x4Const(0x0f0f0f0f).v128And().set(half);
  madd16(0);
  code.get(bytes).i32(4);
  simd(I8X16_SHR_U);
  code.set(half);
  madd16(64);
  code.get(bp).i32(16).i32Add().set(bp);
  code.get(ap).i32(128).i32Add().set(ap);
  code.get(c).i32(1).i32Add().set(c);
  code.br(0).end().end();
  // acc += dot · scale[n, kb]; corr += scale · zp · Σa
  code.get(scales).get(n).get(blocks).i32Mul().get(kb).i32Add().i32(2).i32Shl().i32Add().f32Load().set(scale);
  code.get(acc).get(dot).get(scale).f32x4Splat().f32x4Mul().f32x4Add().set(acc);
  code.f32(8).set(zero);
  code.get(zp).i32(0).i32Ne().if();
  code.get(zp).get(n).get(zpRow).i32Mul().i32Add().get(kb).i32(1);
  code.bytes.push(0x76); // i32.shr_u
  code.i32Add();
  code.bytes.push(0x2d, 0x00, 0x00); // i32.load8_u align 0 offset 0
  code.get(kb).i32(1).i32And().i32(2).i32Shl();
  code.bytes.push(0x76); // i32.shr_u
  code.i32(15).i32And().f32ConvertI32S().set(zero);
  code.end();
  code.get(corr).get(scale).get(zero).f32Mul();
  code.get(aSum).get(m).get(blocks).i32Mul().get(kb).i32Add().i32(2).i32Shl().i32Add().f32Load().f32Mul().f32Add().set(corr);
  code.get(kb).i32(1).i32Add().set(kb);
  code.br(0).end().end();
  // y[m·ldy + n] = Σ lanes(acc) − corr
  code.get(y).get(m).get(ldy).i32Mul().get(n).i32Add().i32(2).i32Shl().i32Add();
  code.get(acc).f32x4ExtractLane(0).get(acc).f32x4ExtractLane(1).f32Add();
  code.get(acc).f32x4ExtractLane(2).get(acc).f32x4ExtractLane(3).f32Add().f32Add();
  code.get(corr).f32Sub().f32Store();
  code.get(n).i32(1).i32Add().set(n);
  code.br(0).end().end();
  code.get(m).i32(1).i32Add().set(m);
  code.br(0).end().end();
  return { name: 'nbits4', params: Array.from({ length: 12 }, () => I32), results: [], code };
}

export interface MatMulNBitsExports {
  nbits4(...args: number[]): void;
}

const exportsOf = extraModule(() => [nbits4Function()]);

/** The 4-bit MatMulNBits kernel instantiated over `memory` (cached per memory); undefined without SIMD. */
export function matMulNBitsModule(memory: LinearMemory): MatMulNBitsExports | undefined {
  return exportsOf(memory) as MatMulNBitsExports | undefined;
}
