import { Code, F32, type FunctionDef, I32, V128, type ValType } from './emitter.js';

/** What an elementwise body sees: v128 locals holding the operands, the result and splatted float parameters. */
interface BodyEnv {
  readonly inputs: readonly number[];
  readonly out: number;
  readonly floats: readonly number[];
  temp(): number;
}
type Body = (code: Code, env: BodyEnv) => void;

/**
 * Generates `name(in0, …, y, n, f0, …)`: y[i] = body(in0[i], …) over n float32 (byte addresses).
 * A 'scalar' input is one element splatted across the whole stream (per-channel and scalar
 * broadcasts). The body is emitted twice: on f32x4 for the multiples of 4, then on splatted single
 * elements for the tail, so in-place runs (y = in0) never read a lane twice.
 */
export function streamFunction(name: string, inputs: readonly ('vector' | 'scalar')[], floatCount: number, body: Body): FunctionDef {
  const k = inputs.length;
  const y = k;
  const n = k + 1;
  const code = new Code(k + 2 + floatCount);
  const values = inputs.map(() => code.local(V128));
  const out = code.local(V128);
  const at = code.local(I32);
  const end = code.local(I32);
  const floats: number[] = [];
  for (let j = 0; j < floatCount; j++) {
    const local = code.local(V128);
    code
      .get(k + 2 + j)
      .f32x4Splat()
      .set(local);
    floats.push(local);
  }
  const env: BodyEnv = { inputs: values, out, floats, temp: () => code.local(V128) };
  inputs.forEach((kind, i) => {
    if (kind === 'scalar')
      code
        .get(i)
        .v128Load32Splat()
        .set(values[i] as number);
  });
  code.get(n).i32(-4).i32And().i32(2).i32Shl().set(end);
  code.i32(0).set(at);
  code.block().loop();
  code.get(at).get(end).i32GeS().brIf(1);
  inputs.forEach((kind, i) => {
    if (kind === 'vector')
      code
        .get(i)
        .get(at)
        .i32Add()
        .v128Load()
        .set(values[i] as number);
  });
  body(code, env);
  code.get(y).get(at).i32Add().get(out).v128Store();
  code.get(at).i32(16).i32Add().set(at);
  code.br(0).end().end();
  code.get(n).i32(2).i32Shl().set(end);
  code.block().loop();
  code.get(at).get(end).i32GeS().brIf(1);
  inputs.forEach((kind, i) => {
    if (kind === 'vector')
      code
        .get(i)
        .get(at)
        .i32Add()
        .f32Load()
        .f32x4Splat()
        .set(values[i] as number);
  });
  body(code, env);
  code.get(y).get(at).i32Add().get(out).f32x4ExtractLane(0).f32Store();
  code.get(at).i32(4).i32Add().set(at);
  code.br(0).end().end();
  const params: ValType[] = [...inputs.map((): ValType => I32), I32, I32, ...new Array<ValType>(floatCount).fill(F32)];
  return { name, params, results: [], code };
}

/** 1.5·2^23: adding it rounds a float of magnitude below 2^22 to an integer held in the low mantissa bits. */
const ROUND_MAGIC = 12582912;

/**
 * e^v for v ≤ 0 (larger v is not needed by the callers): Cody–Waite reduction by ln 2, a
 * degree-6 polynomial on |r| ≤ ln2/2 (relative error about 1 ulp), and 2^n built in the exponent
 * bits. Results under 2^-126 (v < -87.3) flush to 0. n = round(v·log2 e) comes from adding
 * ROUND_MAGIC, whose low bits then are n itself: no floor or float-to-int conversion (V8 lowers the
 * saturating i32x4.trunc_sat to a long sequence on x64).
 */
export function emitExpNonPositive(code: Code, env: { temp(): number }, source: number, target: number): void {
  const v = env.temp();
  const fx = env.temp();
  const r = env.temp();
  const m = env.temp();
  // pmax is one instruction (max adds NaN and ±0 handling); a NaN source stays NaN
  code.get(source).f32x4Const(-87.3).f32x4Pmax().set(v);
  code.get(v).f32x4Const(Math.LOG2E).f32x4Mul().f32x4Const(ROUND_MAGIC).f32x4Add().set(m);
  code.get(m).f32x4Const(ROUND_MAGIC).f32x4Sub().set(fx);
  code.get(v).get(fx).f32x4Const(0.693359375).f32x4Mul().f32x4Sub().get(fx).f32x4Const(-2.1219444e-4).f32x4Mul().f32x4Sub().set(r);
  code.f32x4Const(1.98756915e-4);
  for (const c of [1.3981999507e-3, 8.3334519073e-3, 4.1665795894e-2, 1.6666665459e-1, 5.0000001201e-1]) {
    code.get(r).f32x4Mul().f32x4Const(c).f32x4Add();
  }
  code.get(r).get(r).f32x4Mul().f32x4Mul().get(r).f32x4Add().f32x4Const(1).f32x4Add();
  // 2^n: the bits of m are those of ROUND_MAGIC plus n (n ≥ -126); n + 127 shifted into the
  // exponent field pushes ROUND_MAGIC's bits (all above bit 8) out of the word
  code.get(m).i32x4Const(127).i32x4Add().i32(23).i32x4Shl();
  code.f32x4Mul().set(r);
  // zero where v < -87.3; NaN compares false and stays NaN
  code.f32x4Const(0).get(r).get(source).f32x4Const(-87.3).f32x4Lt().v128Bitselect().set(target);
}

const binaryBodies: Readonly<Record<'add' | 'sub' | 'mul' | 'div', (code: Code) => Code>> = {
  add: (code) => code.f32x4Add(),
  sub: (code) => code.f32x4Sub(),
  mul: (code) => code.f32x4Mul(),
  div: (code) => code.f32x4Div(),
};
export type BinaryKind = keyof typeof binaryBodies;
export const BINARY_KINDS: readonly BinaryKind[] = ['add', 'sub', 'mul', 'div'];
/** Operand layouts of one broadcast row: both vectors, B one repeated element, or A one. */
export const BINARY_MODES = ['VV', 'VS', 'SV'] as const;
export type BinaryMode = (typeof BINARY_MODES)[number];

function binaryFunction(kind: BinaryKind, mode: BinaryMode): FunctionDef {
  const layout: ('vector' | 'scalar')[] =
    mode === 'VV' ? ['vector', 'vector'] : mode === 'VS' ? ['vector', 'scalar'] : ['scalar', 'vector'];
  return streamFunction(`${kind}${mode}`, layout, 0, (code, env) => {
    code.get(env.inputs[0] as number).get(env.inputs[1] as number);
    binaryBodies[kind](code).set(env.out);
  });
}

const unaryDefinitions: readonly (readonly [string, number, Body])[] = [
  // max (not pmax) so NaN stays NaN and -0 becomes +0, as Math.max(v, 0) does
  [
    'relu',
    0,
    (code, env) =>
      code
        .get(env.inputs[0] as number)
        .f32x4Const(0)
        .f32x4Max()
        .set(env.out),
  ],
  [
    'leakyRelu',
    1,
    (code, env) => {
      const x = env.inputs[0] as number;
      code
        .get(x)
        .get(x)
        .get(env.floats[0] as number)
        .f32x4Mul()
        .get(x)
        .f32x4Const(0)
        .f32x4Ge()
        .v128Bitselect()
        .set(env.out);
    },
  ],
  // v < lo ? lo : min(v, hi), NaN kept: exactly pmax then pmin
  [
    'clip',
    2,
    (code, env) =>
      code
        .get(env.inputs[0] as number)
        .get(env.floats[0] as number)
        .f32x4Pmax()
        .get(env.floats[1] as number)
        .f32x4Pmin()
        .set(env.out),
  ],
  // x·a + b: BatchNormalization folded per channel
  [
    'affine',
    2,
    (code, env) =>
      code
        .get(env.inputs[0] as number)
        .get(env.floats[0] as number)
        .f32x4Mul()
        .get(env.floats[1] as number)
        .f32x4Add()
        .set(env.out),
  ],
  [
    'hardSigmoid',
    2,
    (code, env) =>
      code
        .get(env.inputs[0] as number)
        .get(env.floats[0] as number)
        .f32x4Mul()
        .get(env.floats[1] as number)
        .f32x4Add()
        // pmin/pmax are single instructions (plain min/max add NaN handling); NaN still passes
        .f32x4Const(1)
        .f32x4Pmin()
        .f32x4Const(0)
        .f32x4Pmax()
        .set(env.out),
  ],
  [
    'hardSwish',
    0,
    (code, env) => {
      const x = env.inputs[0] as number;
      // x · clamp(x/6 + 1/2, 0, 1) with a multiply instead of a divide and pmin/pmax (NaN passes)
      code
        .get(x)
        .get(x)
        .f32x4Const(1 / 6)
        .f32x4Mul()
        .f32x4Const(0.5)
        .f32x4Add()
        .f32x4Const(1)
        .f32x4Pmin()
        .f32x4Const(0)
        .f32x4Pmax();
      code.f32x4Mul().set(env.out);
    },
  ],
  [
    // e = exp(-|x|) never overflows; 1/(1+e) for x ≥ 0 and e/(1+e) below
    'sigmoid',
    0,
    (code, env) => {
      const x = env.inputs[0] as number;
      const e = env.temp();
      const s = env.temp();
      code.get(x).f32x4Abs().f32x4Const(-1).f32x4Mul().set(e);
      emitExpNonPositive(code, env, e, e);
      code.f32x4Const(1).f32x4Const(1).get(e).f32x4Add().f32x4Div().set(s);
      code.get(s).get(e).get(s).f32x4Mul().get(x).f32x4Const(0).f32x4Ge().v128Bitselect().set(env.out);
    },
  ],
  [
    // an odd polynomial near zero (where 1 - e cancels), (1 - e)/(1 + e) with e = exp(-2|x|) beyond
    'tanh',
    0,
    (code, env) => {
      const x = env.inputs[0] as number;
      const a = env.temp();
      const e = env.temp();
      const z = env.temp();
      code.get(x).f32x4Abs().set(a);
      code.get(a).f32x4Const(-2).f32x4Mul().set(e);
      emitExpNonPositive(code, env, e, e);
      code.f32x4Const(1).get(e).f32x4Sub().f32x4Const(1).get(e).f32x4Add().f32x4Div().set(e);
      // copy the sign of x onto the large branch
      code.get(x).get(e).i32x4Const(-0x80000000).v128Bitselect().set(e);
      code.get(x).get(x).f32x4Mul().set(z);
      code.f32x4Const(-5.70498872745e-3);
      for (const c of [2.06390887954e-2, -5.37397155531e-2, 1.33314422036e-1, -3.33332819422e-1]) {
        code.get(z).f32x4Mul().f32x4Const(c).f32x4Add();
      }
      code.get(z).f32x4Mul().get(x).f32x4Mul().get(x).f32x4Add();
      code.get(e).get(a).f32x4Const(0.625).f32x4Lt().v128Bitselect().set(env.out);
    },
  ],
];

/** The generated elementwise functions: binary ops in three broadcast layouts, then unary activations. */
export function elementwiseFunctions(): FunctionDef[] {
  const functions: FunctionDef[] = [];
  for (const kind of BINARY_KINDS) for (const mode of BINARY_MODES) functions.push(binaryFunction(kind, mode));
  for (const [name, floats, body] of unaryDefinitions) functions.push(streamFunction(name, ['vector'], floats, body));
  return functions;
}

type BinaryExport = (a: number, b: number, y: number, n: number) => void;
/** Exports of the elementwise functions (byte addresses, element counts). */
export type ElementwiseExports = Record<`${BinaryKind}${BinaryMode}`, BinaryExport> & {
  relu(x: number, y: number, n: number): void;
  leakyRelu(x: number, y: number, n: number, alpha: number): void;
  clip(x: number, y: number, n: number, lo: number, hi: number): void;
  affine(x: number, y: number, n: number, scale: number, shift: number): void;
  hardSigmoid(x: number, y: number, n: number, alpha: number, beta: number): void;
  hardSwish(x: number, y: number, n: number): void;
  sigmoid(x: number, y: number, n: number): void;
  tanh(x: number, y: number, n: number): void;
};
