/**
 * A small WebAssembly binary emitter. Kernels are generated from TypeScript at load time (or by
 * the compiler), so no WebAssembly toolchain is needed and generated code embeds only numbers.
 */

export const I32 = 0x7f;
export const F32 = 0x7d;
export const V128 = 0x7b;
/** `i8x16Shuffle` lanes taking the even 32-bit elements of two vectors (8 consecutive floats). */
export const EVEN_F32_LANES: readonly number[] = [0, 1, 2, 3, 8, 9, 10, 11, 16, 17, 18, 19, 24, 25, 26, 27];
/** `i8x16Shuffle` lanes taking the odd 32-bit elements of two vectors. */
export const ODD_F32_LANES: readonly number[] = EVEN_F32_LANES.map((b) => b + 4);
export type ValType = typeof I32 | typeof F32 | typeof V128;

function uleb(out: number[], value: number): void {
  let v = value >>> 0;
  do {
    let byte = v & 0x7f;
    v >>>= 7;
    if (v !== 0) byte |= 0x80;
    out.push(byte);
  } while (v !== 0);
}

function sleb(out: number[], value: number): void {
  let v = value | 0;
  for (;;) {
    const byte = v & 0x7f;
    v >>= 7;
    if ((v === 0 && (byte & 0x40) === 0) || (v === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return;
    }
    out.push(byte | 0x80);
  }
}

const f32Scratch = new DataView(new ArrayBuffer(4));

/** Function body builder with one method per instruction used by tsge kernels. */
export class Code {
  readonly bytes: number[] = [];
  private readonly localTypes: ValType[] = [];
  private readonly paramCount: number;

  constructor(paramCount: number) {
    this.paramCount = paramCount;
  }

  /** Declares a local and returns its index. */
  local(type: ValType): number {
    this.localTypes.push(type);
    return this.paramCount + this.localTypes.length - 1;
  }
  get locals(): readonly ValType[] {
    return this.localTypes;
  }

  private op(...b: number[]): this {
    this.bytes.push(...b);
    return this;
  }
  private simd(opcode: number): this {
    this.bytes.push(0xfd);
    uleb(this.bytes, opcode);
    return this;
  }
  private memarg(align: number, offset: number): this {
    uleb(this.bytes, align);
    uleb(this.bytes, offset);
    return this;
  }

  // control
  /** Traps: marks a branch the function's callers promise never to take. */
  unreachable(): this {
    return this.op(0x00);
  }
  block(): this {
    return this.op(0x02, 0x40);
  }
  loop(): this {
    return this.op(0x03, 0x40);
  }
  if(): this {
    return this.op(0x04, 0x40);
  }
  /** An `if` whose branches each leave one value of `type`. */
  ifValue(type: ValType): this {
    return this.op(0x04, type);
  }
  else(): this {
    return this.op(0x05);
  }
  end(): this {
    return this.op(0x0b);
  }
  br(depth: number): this {
    this.op(0x0c);
    uleb(this.bytes, depth);
    return this;
  }
  brIf(depth: number): this {
    this.op(0x0d);
    uleb(this.bytes, depth);
    return this;
  }
  return(): this {
    return this.op(0x0f);
  }
  /** Calls the module's function at `index` (its position in `assembleModule`'s list). */
  call(index: number): this {
    this.op(0x10);
    uleb(this.bytes, index);
    return this;
  }

  // locals
  get(index: number): this {
    this.op(0x20);
    uleb(this.bytes, index);
    return this;
  }
  set(index: number): this {
    this.op(0x21);
    uleb(this.bytes, index);
    return this;
  }
  tee(index: number): this {
    this.op(0x22);
    uleb(this.bytes, index);
    return this;
  }

  // i32
  i32(value: number): this {
    this.op(0x41);
    sleb(this.bytes, value);
    return this;
  }
  i32Add(): this {
    return this.op(0x6a);
  }
  i32Sub(): this {
    return this.op(0x6b);
  }
  i32Mul(): this {
    return this.op(0x6c);
  }
  i32Shl(): this {
    return this.op(0x74);
  }
  i32LtS(): this {
    return this.op(0x48);
  }
  i32GeS(): this {
    return this.op(0x4e);
  }
  i32GtS(): this {
    return this.op(0x4a);
  }
  i32LeS(): this {
    return this.op(0x4c);
  }
  i32Eqz(): this {
    return this.op(0x45);
  }
  i32Ne(): this {
    return this.op(0x47);
  }
  i32Or(): this {
    return this.op(0x72);
  }
  i32And(): this {
    return this.op(0x71);
  }
  i32DivU(): this {
    return this.op(0x6e);
  }
  i32Load(offset = 0): this {
    return this.op(0x28).memarg(2, offset);
  }
  i32Store(offset = 0): this {
    return this.op(0x36).memarg(2, offset);
  }

  // f32
  f32(value: number): this {
    this.op(0x43);
    f32Scratch.setFloat32(0, value, true);
    for (let i = 0; i < 4; i++) this.bytes.push(f32Scratch.getUint8(i));
    return this;
  }
  f32Load(offset = 0): this {
    return this.op(0x2a).memarg(2, offset);
  }
  f32Store(offset = 0): this {
    return this.op(0x38).memarg(2, offset);
  }
  f32Add(): this {
    return this.op(0x92);
  }
  f32Mul(): this {
    return this.op(0x94);
  }
  f32Sub(): this {
    return this.op(0x93);
  }
  f32Div(): this {
    return this.op(0x95);
  }
  f32ConvertI32S(): this {
    return this.op(0xb2);
  }
  /** Truncates an f32 toward zero (traps outside i32's range). */
  i32TruncF32S(): this {
    return this.op(0xa8);
  }
  /** Unsigned ≥, for byte addresses that may pass 2 GiB. */
  i32GeU(): this {
    return this.op(0x4f);
  }
  i32LtU(): this {
    return this.op(0x49);
  }
  i32Eq(): this {
    return this.op(0x46);
  }
  f32Gt(): this {
    return this.op(0x5e);
  }
  /** Untyped select: first operand when the i32 condition is non-zero, else the second. */
  select(): this {
    return this.op(0x1b);
  }
  drop(): this {
    return this.op(0x1a);
  }
  f32Max(): this {
    return this.op(0x97);
  }
  f32Min(): this {
    return this.op(0x96);
  }

  // v128 / f32x4
  v128Load(offset = 0): this {
    return this.simd(0x00).memarg(4, offset);
  }
  v128Store(offset = 0): this {
    return this.simd(0x0b).memarg(4, offset);
  }
  v128Load32Splat(offset = 0): this {
    return this.simd(0x09).memarg(2, offset);
  }
  f32x4Splat(): this {
    return this.simd(0x13);
  }
  f32x4ExtractLane(lane: number): this {
    this.simd(0x1f);
    this.bytes.push(lane);
    return this;
  }
  f32x4Add(): this {
    return this.simd(0xe4);
  }
  f32x4Mul(): this {
    return this.simd(0xe6);
  }
  f32x4Min(): this {
    return this.simd(0xe8);
  }
  f32x4Max(): this {
    return this.simd(0xe9);
  }
  f32x4Sub(): this {
    return this.simd(0xe5);
  }
  f32x4Neg(): this {
    return this.simd(0xe1);
  }
  f32x4Div(): this {
    return this.simd(0xe7);
  }
  /** Pseudo-minimum: b < a ? b : a (one instruction on x86; keeps NaN from a). */
  f32x4Pmin(): this {
    return this.simd(0xea);
  }
  /** Pseudo-maximum: a < b ? b : a (one instruction on x86; keeps NaN from a). */
  f32x4Pmax(): this {
    return this.simd(0xeb);
  }
  f32x4Abs(): this {
    return this.simd(0xe0);
  }
  f32x4Floor(): this {
    return this.simd(0x68);
  }
  f32x4Ceil(): this {
    return this.simd(0x67);
  }
  f32x4Sqrt(): this {
    return this.simd(0xe3);
  }
  f32x4Lt(): this {
    return this.simd(0x43);
  }
  f32x4Ge(): this {
    return this.simd(0x46);
  }
  /** v128 with four equal f32 lanes. */
  f32x4Const(value: number): this {
    this.simd(0x0c);
    f32Scratch.setFloat32(0, value, true);
    for (let lane = 0; lane < 4; lane++) for (let i = 0; i < 4; i++) this.bytes.push(f32Scratch.getUint8(i));
    return this;
  }
  /** v128 with four equal i32 lanes. */
  i32x4Const(value: number): this {
    this.simd(0x0c);
    f32Scratch.setInt32(0, value, true);
    for (let lane = 0; lane < 4; lane++) for (let i = 0; i < 4; i++) this.bytes.push(f32Scratch.getUint8(i));
    return this;
  }
  v128And(): this {
    return this.simd(0x4e);
  }
  v128Or(): this {
    return this.simd(0x50);
  }
  /** (a & mask) | (b & ~mask), operands pushed a, b, mask. */
  v128Bitselect(): this {
    return this.simd(0x52);
  }
  i32x4TruncSatF32x4S(): this {
    return this.simd(0xf8);
  }
  i32x4Add(): this {
    return this.simd(0xae);
  }
  /** Shift each i32 lane left by an i32 count. */
  i32x4Shl(): this {
    return this.simd(0xab);
  }
  /** Shift each i32 lane right, arithmetically, by an i32 count. */
  i32x4ShrS(): this {
    return this.simd(0xac);
  }
  i32x4Mul(): this {
    return this.simd(0xb5);
  }
  /** Shuffle bytes of two vectors by 16 lane indices (0-15 first operand, 16-31 second). */
  i8x16Shuffle(lanes: readonly number[]): this {
    this.simd(0x0d);
    for (const lane of lanes) this.bytes.push(lane);
    return this;
  }
  // integer SIMD (the quantized kernels)
  i32Load8U(offset = 0): this {
    return this.op(0x2d).memarg(0, offset);
  }
  i32Load8S(offset = 0): this {
    return this.op(0x2c).memarg(0, offset);
  }
  i32Load16S(offset = 0): this {
    return this.op(0x2e).memarg(1, offset);
  }
  i32Store8(offset = 0): this {
    return this.op(0x3a).memarg(0, offset);
  }
  i32Store16(offset = 0): this {
    return this.op(0x3b).memarg(1, offset);
  }
  i32ShrS(): this {
    return this.op(0x75);
  }
  i32Load16U(offset = 0): this {
    return this.op(0x2f).memarg(1, offset);
  }
  /** Four u16 widened (zero-extended) to i32 lanes. */
  v128Load16x4U(offset = 0): this {
    return this.simd(0x04).memarg(3, offset);
  }
  /** Signed i32 lane comparison a > b: all ones or zero per lane. */
  i32x4GtS(): this {
    return this.simd(0x3b);
  }
  /** Two bytes repeated across the vector. */
  v128Load16Splat(offset = 0): this {
    return this.simd(0x08).memarg(1, offset);
  }
  /** Eight bytes widened to i16 lanes, signed or unsigned. */
  v128Load8x8(signed: boolean, offset = 0): this {
    return this.simd(signed ? 0x01 : 0x02).memarg(3, offset);
  }
  /** Stores the low eight bytes of the vector. */
  /** v128.load32_lane: [address, vector] → the vector with `lane` replaced by the 32 bits at the address. */
  v128Load32Lane(lane: number, offset = 0): this {
    this.simd(0x56).memarg(2, offset);
    this.bytes.push(lane);
    return this;
  }
  v128Store64Lane0(offset = 0): this {
    this.simd(0x5b).memarg(3, offset);
    this.bytes.push(0);
    return this;
  }
  i16x8Splat(): this {
    return this.simd(0x10);
  }
  i8x16Splat(): this {
    return this.simd(0x0f);
  }
  /** Saturating signed i16 add. */
  i16x8AddSatS(): this {
    return this.simd(0x8f);
  }
  /** Lane-wise minimum of bytes, signed or unsigned. */
  i8x16Min(signed: boolean): this {
    return this.simd(signed ? 0x76 : 0x77);
  }
  /** Lane-wise maximum of bytes, signed or unsigned. */
  i8x16Max(signed: boolean): this {
    return this.simd(signed ? 0x78 : 0x79);
  }
  i32x4Splat(): this {
    return this.simd(0x11);
  }
  i32x4ExtractLane(lane: number): this {
    this.simd(0x1b);
    this.bytes.push(lane);
    return this;
  }
  i16x8ExtendLowI8x16(signed: boolean): this {
    return this.simd(signed ? 0x87 : 0x89);
  }
  i16x8ExtendHighI8x16(signed: boolean): this {
    return this.simd(signed ? 0x88 : 0x8a);
  }
  i16x8Sub(): this {
    return this.simd(0x91);
  }
  i16x8NarrowI32x4S(): this {
    return this.simd(0x85);
  }
  /** Saturating narrow of signed i16 lanes to int8 (signed) or uint8 (unsigned). */
  i8x16NarrowI16x8(signed: boolean): this {
    return this.simd(signed ? 0x65 : 0x66);
  }
  /** Lane-wise Σ of adjacent i16 products into i32 lanes. */
  i32x4DotI16x8S(): this {
    return this.simd(0xba);
  }
  i32x4ExtmulLowI16x8S(): this {
    return this.simd(0xbc);
  }
  i32x4ExtmulHighI16x8S(): this {
    return this.simd(0xbd);
  }
  i32x4ExtendLowI16x8S(): this {
    return this.simd(0xa7);
  }
  i32x4ExtendHighI16x8S(): this {
    return this.simd(0xa8);
  }
  f32x4Eq(): this {
    return this.simd(0x41);
  }
  f32x4ConvertI32x4S(): this {
    return this.simd(0xfa);
  }
  /** Round to nearest, ties to even. */
  f32x4Nearest(): this {
    return this.simd(0x6a);
  }
  f64PromoteF32(): this {
    return this.op(0xbb);
  }
  f64x2Splat(): this {
    return this.simd(0x14);
  }
  /** The low two i32 lanes as f64 lanes. */
  f64x2ConvertLowI32x4S(): this {
    return this.simd(0xfe);
  }
  f64x2Mul(): this {
    return this.simd(0xf2);
  }
  f64x2Min(): this {
    return this.simd(0xf4);
  }
  f64x2Max(): this {
    return this.simd(0xf5);
  }
  /** Round to nearest, ties to even. */
  f64x2Nearest(): this {
    return this.simd(0x94);
  }
  /** Two f64 lanes truncated (saturating) to i32 lanes 0 and 1; lanes 2 and 3 are zero. */
  i32x4TruncSatF64x2SZero(): this {
    return this.simd(0xfc);
  }
  /**
   * `if (condition) body(true) else body(false)` leaving one value of `type`: code specialised to a
   * signedness (or any flag) chosen at run time.
   */
  bySign(condition: () => void, type: ValType, body: (signed: boolean) => void): this {
    condition();
    this.ifValue(type);
    body(true);
    this.else();
    body(false);
    return this.end();
  }
  /** Relaxed SIMD fused multiply-add: a*b + c (operands pushed a, b, c). */
  f32x4RelaxedMadd(): this {
    return this.simd(0x105);
  }
}

export interface FunctionDef {
  readonly name: string;
  readonly params: readonly ValType[];
  readonly results: readonly ValType[];
  readonly code: Code;
}

/**
 * Assembles a module importing `env.memory` (shared or not, to match the device memory) and
 * exporting the given functions.
 */
export function assembleModule(functions: readonly FunctionDef[], memory: { shared: boolean }): Uint8Array {
  const out: number[] = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  // (appended in chunks: a spread of a large body would pass the engine's argument limit)
  const append = (target: number[], bytes: readonly number[]): void => {
    for (let i = 0; i < bytes.length; i += 8192) target.push(...bytes.slice(i, i + 8192));
  };
  const section = (id: number, body: number[]): void => {
    out.push(id);
    uleb(out, body.length);
    append(out, body);
  };
  const name = (target: number[], s: string): void => {
    const bytes = new TextEncoder().encode(s);
    uleb(target, bytes.length);
    target.push(...bytes);
  };
  // types: one per function
  const types: number[] = [];
  uleb(types, functions.length);
  for (const f of functions) {
    types.push(0x60);
    uleb(types, f.params.length);
    types.push(...f.params);
    uleb(types, f.results.length);
    types.push(...f.results);
  }
  section(1, types);
  // import env.memory
  const imports: number[] = [];
  uleb(imports, 1);
  name(imports, 'env');
  name(imports, 'memory');
  imports.push(0x02);
  if (memory.shared) {
    imports.push(0x03);
    uleb(imports, 1);
    uleb(imports, 65536);
  } else {
    imports.push(0x00);
    uleb(imports, 1);
  }
  section(2, imports);
  const funcs: number[] = [];
  uleb(funcs, functions.length);
  for (let i = 0; i < functions.length; i++) uleb(funcs, i);
  section(3, funcs);
  const exports: number[] = [];
  uleb(exports, functions.length);
  functions.forEach((f, i) => {
    name(exports, f.name);
    exports.push(0x00);
    uleb(exports, i);
  });
  section(7, exports);
  const code: number[] = [];
  uleb(code, functions.length);
  for (const f of functions) {
    const body: number[] = [];
    // locals, run-length grouped
    const groups: [number, ValType][] = [];
    for (const t of f.code.locals) {
      const last = groups[groups.length - 1];
      if (last && last[1] === t) last[0]++;
      else groups.push([1, t]);
    }
    uleb(body, groups.length);
    for (const [count, t] of groups) {
      uleb(body, count);
      body.push(t);
    }
    append(body, f.code.bytes);
    body.push(0x0b);
    uleb(code, body.length);
    append(code, body);
  }
  section(10, code);
  return new Uint8Array(out);
}
