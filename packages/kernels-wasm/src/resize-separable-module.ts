import type { LinearMemory } from '@tsge/metadef';
import { Code, F32, type FunctionDef, I32, V128, EVEN_F32_LANES, ODD_F32_LANES } from './emitter.js';
import { extraModule } from './extra-modules.js';

/** f32.ne: the emitter has no method for it, and only this module compares weights with zero. */
const F32_NE = 0x5c;

/**
 * Generates `axpy(dst, src, bytes, w, accumulate)`: dst = (accumulate ? dst : 0) + w·src over
 * `bytes` of float32, four lanes a step and a scalar tail. Without `accumulate` dst is written, not
 * read, so it may hold anything (NaN from an earlier row included).
 */
function axpyFunction(): FunctionDef {
  const [dst, src, bytes, w, accumulate] = [0, 1, 2, 3, 4];
  const code = new Code(5);
  const at = code.local(I32);
  const vectorEnd = code.local(I32);
  const wv = code.local(V128);
  code.get(bytes).i32(-16).i32And().set(vectorEnd);
  code.get(w).f32x4Splat().set(wv);
  const loops = (add: boolean): void => {
    code.i32(0).set(at);
    code.block().loop();
    code.get(at).get(vectorEnd).i32GeS().brIf(1);
    code.get(dst).get(at).i32Add();
    code.get(src).get(at).i32Add().v128Load().get(wv).f32x4Mul();
    if (add) code.get(dst).get(at).i32Add().v128Load().f32x4Add();
    code.v128Store();
    code.get(at).i32(16).i32Add().set(at);
    code.br(0).end().end();
    code.block().loop();
    code.get(at).get(bytes).i32GeS().brIf(1);
    code.get(dst).get(at).i32Add();
    code.get(src).get(at).i32Add().f32Load().get(w).f32Mul();
    if (add) code.get(dst).get(at).i32Add().f32Load().f32Add();
    code.f32Store();
    code.get(at).i32(4).i32Add().set(at);
    code.br(0).end().end();
  };
  code.get(accumulate).if();
  loops(true);
  code.else();
  loops(false);
  code.end();
  return { name: 'axpy', params: [I32, I32, I32, F32, I32], results: [], code };
}

/**
 * Generates `resizeRows(x, y, r0, r1, H, WC, C, OH, OW, cH, cW, rowIndex, rowWeight, columnOffset,
 * columnWeight, blend)` for output rows [r0, r1) of x viewed as [planes, H, W, C] (WC = W·C):
 * each output row blends its cH input rows into `blend` (WC float32), then each output column sums
 * its cW taps of C elements of the blend. The tables (int32 input rows, float32 weights, int32 byte
 * offsets into the blend) hold cH taps per output row and cW per output column. Taps of weight 0
 * are skipped, as the reference skips them: 0·∞ would be NaN.
 */
function resizeRowsFunction(axpy: number): FunctionDef {
  const [x, y, r0, r1, H, WC, C, OH, OW, cH, cW, rowIndex, rowWeight, columnOffset, columnWeight, blend] = Array.from(
    { length: 16 },
    (_, i) => i,
  ) as number[] as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const code = new Code(16);
  const r = code.local(I32);
  const p = code.local(I32);
  const oh = code.local(I32);
  const t = code.local(I32);
  const k = code.local(I32);
  const ow = code.local(I32);
  const out = code.local(I32);
  const at = code.local(I32);
  const rowBytes = code.local(I32);
  const columnBytes = code.local(I32);
  const written = code.local(I32);
  const w = code.local(F32);
  const s = code.local(F32);
  const v = code.local(F32);
  const vectorEnd = code.local(I32);
  const [wa, wb, oa, ob, w0, w1, b0, b1, sv] = Array.from({ length: 9 }, () => code.local(V128));
  /** for (counter = from; counter < to; counter++) body */
  const count = (counter: number, from: () => void, to: number, body: () => void): void => {
    from();
    code.set(counter);
    code.block().loop();
    code.get(counter).get(to).i32GeS().brIf(1);
    body();
    code.get(counter).i32(1).i32Add().set(counter);
    code.br(0).end().end();
  };
  /** Zero-fills `bytes` bytes at `dst` (a row or column whose taps all weigh 0). */
  const zeroFill = (dst: () => void, bytes: number): void => {
    code.i32(0).set(at);
    code.block().loop();
    code.get(at).get(bytes).i32GeS().brIf(1);
    dst();
    code.get(at).i32Add().f32(0).f32Store();
    code.get(at).i32(4).i32Add().set(at);
    code.br(0).end().end();
  };
  /** Reads weight `table`[k] into `w`. */
  const weight = (table: number): void => {
    code.get(table).get(k).i32Add().f32Load().set(w);
  };
  code.get(WC).i32(2).i32Shl().set(rowBytes);
  code.get(C).i32(2).i32Shl().set(columnBytes);
  count(
    r,
    () => code.get(r0),
    r1,
    () => {
      code.get(r).get(OH).i32DivU().set(p);
      code.get(r).get(p).get(OH).i32Mul().i32Sub().set(oh);
      // the row pass
      code.i32(0).set(written);
      count(
        t,
        () => code.i32(0),
        cH,
        () => {
          code.get(oh).get(cH).i32Mul().get(t).i32Add().i32(2).i32Shl().set(k);
          weight(rowWeight);
          code.get(w).f32(0);
          code.bytes.push(F32_NE);
          code.if();
          code.get(blend);
          code.get(p).get(H).i32Mul().get(rowIndex).get(k).i32Add().i32Load().i32Add().get(rowBytes).i32Mul().get(x).i32Add();
          code.get(rowBytes).get(w).get(written).call(axpy);
          code.i32(1).set(written);
          code.end();
        },
      );
      code.get(written).i32Eqz().if();
      zeroFill(() => code.get(blend), rowBytes);
      code.end();
      // the column pass
      code.get(r).get(OW).i32Mul().get(columnBytes).i32Mul().get(y).i32Add().set(out);
      code.get(C).i32(1).i32Eq().get(cW).i32(2).i32Eq().i32And().if();
      // one element per column from two taps (linear): 4 columns a step, their taps gathered into
      // lanes, zero weights selected out exactly as the scalar steps below do
      code.get(OW).i32(-4).i32And().set(vectorEnd);
      code.i32(0).set(ow);
      code.block().loop();
      code.get(ow).get(vectorEnd).i32GeS().brIf(1);
      code.get(ow).i32(3).i32Shl().set(k);
      code.get(columnWeight).get(k).i32Add().v128Load().set(wa);
      code.get(columnWeight).get(k).i32Add().v128Load(16).set(wb);
      code.get(columnOffset).get(k).i32Add().v128Load().set(oa);
      code.get(columnOffset).get(k).i32Add().v128Load(16).set(ob);
      code.get(wa).get(wb).i8x16Shuffle(EVEN_F32_LANES).set(w0);
      code.get(wa).get(wb).i8x16Shuffle(ODD_F32_LANES).set(w1);
      for (const [tap, into] of [
        [0, b0],
        [1, b1],
      ] as const)
        for (let lane = 0; lane < 4; lane++) {
          const from = lane < 2 ? oa : ob;
          code
            .get(blend)
            .get(from)
            .i32x4ExtractLane((lane % 2) * 2 + tap)
            .i32Add()
            .get(into)
            .v128Load32Lane(lane)
            .set(into);
        }
      // s = w0 ≠ 0 ? w0·b0 : 0, then s = w1 ≠ 0 ? s + w1·b1 : s
      code.f32(0).f32x4Splat().get(w0).get(b0).f32x4Mul().get(w0).f32(0).f32x4Splat().f32x4Eq().v128Bitselect().set(sv);
      code.get(sv).get(sv).get(w1).get(b1).f32x4Mul().f32x4Add().get(w1).f32(0).f32x4Splat().f32x4Eq().v128Bitselect().set(sv);
      code.get(out).get(ow).i32(2).i32Shl().i32Add().get(sv).v128Store();
      code.get(ow).i32(4).i32Add().set(ow);
      code.br(0).end().end();
      count(
        ow,
        () => code.get(vectorEnd),
        OW,
        () => {
          code.get(ow).i32(3).i32Shl().set(k);
          weight(columnWeight);
          code.get(w).get(blend).get(columnOffset).get(k).i32Add().i32Load().i32Add().f32Load().f32Mul();
          code.f32(0).get(w).f32(0);
          code.bytes.push(F32_NE);
          code.select().set(s);
          code.get(columnWeight).get(k).i32Add().f32Load(4).set(w);
          code.get(w).get(blend).get(columnOffset).get(k).i32Add().i32Load(4).i32Add().f32Load().f32Mul().set(v);
          code.get(s).get(v).f32Add().get(s).get(w).f32(0);
          code.bytes.push(F32_NE);
          code.select().set(s);
          code.get(out).get(ow).i32(2).i32Shl().i32Add().get(s).f32Store();
        },
      );
      code.else();
      code.get(C).i32(1).i32Eq().if();
      // one element per column: a gather, summed in the reference's order
      count(
        ow,
        () => code.i32(0),
        OW,
        () => {
          code.f32(0).set(s);
          code.i32(0).set(written);
          count(
            t,
            () => code.i32(0),
            cW,
            () => {
              code.get(ow).get(cW).i32Mul().get(t).i32Add().i32(2).i32Shl().set(k);
              weight(columnWeight);
              code.get(w).f32(0);
              code.bytes.push(F32_NE);
              code.if();
              code.get(w).get(blend).get(columnOffset).get(k).i32Add().i32Load().i32Add().f32Load().f32Mul().set(v);
              // the first tap sets the sum (as the reference, which starts from the first product)
              code.get(s).get(v).f32Add().get(v).get(written).select().set(s);
              code.i32(1).set(written);
              code.end();
            },
          );
          code.get(out).get(ow).i32(2).i32Shl().i32Add().get(s).f32Store();
        },
      );
      code.else();
      // C elements per column: each tap is a vector axpy over them
      count(
        ow,
        () => code.i32(0),
        OW,
        () => {
          code.i32(0).set(written);
          count(
            t,
            () => code.i32(0),
            cW,
            () => {
              code.get(ow).get(cW).i32Mul().get(t).i32Add().i32(2).i32Shl().set(k);
              weight(columnWeight);
              code.get(w).f32(0);
              code.bytes.push(F32_NE);
              code.if();
              code.get(out).get(ow).get(columnBytes).i32Mul().i32Add();
              code.get(blend).get(columnOffset).get(k).i32Add().i32Load().i32Add();
              code.get(columnBytes).get(w).get(written).call(axpy);
              code.i32(1).set(written);
              code.end();
            },
          );
          code.get(written).i32Eqz().if();
          zeroFill(() => code.get(out).get(ow).get(columnBytes).i32Mul().i32Add(), columnBytes);
          code.end();
        },
      );
      code.end();
      code.end();
    },
  );
  return { name: 'resizeRows', params: Array.from({ length: 16 }, () => I32), results: [], code };
}

export type ResizeRows = (
  x: number,
  y: number,
  r0: number,
  r1: number,
  H: number,
  WC: number,
  C: number,
  OH: number,
  OW: number,
  cH: number,
  cW: number,
  rowIndex: number,
  rowWeight: number,
  columnOffset: number,
  columnWeight: number,
  blend: number,
) => void;

const resizeExports = extraModule('resize-separable', () => [axpyFunction(), resizeRowsFunction(0)]);

/** The separable Resize row kernel on `memory`; undefined without WebAssembly SIMD. */
export function resizeRowsKernel(memory: LinearMemory): ResizeRows | undefined {
  return resizeExports(memory)?.resizeRows as ResizeRows | undefined;
}
