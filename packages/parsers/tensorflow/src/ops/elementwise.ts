import { type DataType, type Value, attr } from '@tsge/metadef';
import type { ConvertContext } from '../import/context.js';
import type { ConverterTable, OpConverter } from './registry.js';

function rankOfAll(ctx: ConvertContext, values: readonly Value[]): number | undefined {
  let rank = 0;
  for (const v of values) {
    const r = ctx.rankOf(v);
    if (r === undefined) return undefined;
    rank = Math.max(rank, r);
  }
  return rank;
}

/** Notes the rank (broadcast of the inputs) and dtype of an elementwise result. */
export function elementwise(ctx: ConvertContext, out: Value, inputs: readonly Value[], dtype?: DataType): Value {
  const rank = rankOfAll(ctx, inputs);
  const type = dtype ?? ctx.dtypeOf(inputs[0] as Value);
  return ctx.note(out, { ...(rank !== undefined ? { rank } : {}), ...(type ? { dtype: type } : {}) });
}

const unary =
  (type: string, attrs?: (ctx: ConvertContext) => Record<string, ReturnType<typeof attr.float>>): OpConverter =>
  (ctx) => {
    const x = ctx.input(0);
    return [elementwise(ctx, ctx.op1(type, [x], attrs?.(ctx)), [x])];
  };

const binary =
  (type: string, resultType?: DataType): OpConverter =>
  (ctx) => {
    const a = ctx.input(0);
    const b = ctx.input(1);
    return [elementwise(ctx, ctx.op1(type, [a, b]), [a, b], resultType)];
  };

/** A same-typed scalar constant beside x (x's dtype when known, float32 otherwise). */
function scalarLike(ctx: ConvertContext, x: Value, value: number): Value {
  return ctx.scalar(value, ctx.dtypeOf(x) ?? (ctx.attrs.has('T') ? ctx.attrs.dtype('T') : 'float32'));
}

function isIntegerType(type: DataType | undefined): boolean {
  return type !== undefined && /int/.test(type);
}

export const elementwiseConverters: ConverterTable = {
  Identity: (ctx) => [ctx.input(0)],
  StopGradient: (ctx) => [ctx.input(0)],
  Snapshot: (ctx) => [ctx.input(0)],
  PreventGradient: (ctx) => [ctx.input(0)],
  EnsureShape: (ctx) => [ctx.input(0)],
  CheckNumerics: (ctx) => [ctx.input(0)],
  IdentityN: (ctx) => Array.from({ length: ctx.inputCount }, (_, i) => ctx.input(i)),
  Relu: unary('Relu'),
  Relu6: (ctx) => {
    const x = ctx.input(0);
    return [elementwise(ctx, ctx.op1('Clip', [x, scalarLike(ctx, x, 0), scalarLike(ctx, x, 6)]), [x])];
  },
  Elu: unary('Elu'),
  Selu: unary('Selu'),
  LeakyRelu: unary('LeakyRelu', (ctx) => ({ alpha: attr.float(ctx.attrs.float('alpha', 0.2)) })),
  Sigmoid: unary('Sigmoid'),
  Tanh: unary('Tanh'),
  Exp: unary('Exp'),
  Log: unary('Log'),
  Sqrt: unary('Sqrt'),
  Abs: unary('Abs'),
  Neg: unary('Neg'),
  Floor: unary('Floor'),
  Ceil: unary('Ceil'),
  Round: unary('Round'),
  Rint: unary('Round'),
  Sin: unary('Sin'),
  Cos: unary('Cos'),
  Tan: unary('Tan'),
  Asin: unary('Asin'),
  Acos: unary('Acos'),
  Atan: unary('Atan'),
  Sinh: unary('Sinh'),
  Cosh: unary('Cosh'),
  Asinh: unary('Asinh'),
  Acosh: unary('Acosh'),
  Atanh: unary('Atanh'),
  Erf: unary('Erf'),
  Sign: unary('Sign'),
  Reciprocal: unary('Reciprocal'),
  Inv: unary('Reciprocal'),
  Softplus: unary('Softplus'),
  Softsign: unary('Softsign'),
  IsNan: (ctx) => [elementwise(ctx, ctx.op1('IsNaN', [ctx.input(0)]), [ctx.input(0)], 'bool')],
  IsInf: (ctx) => [elementwise(ctx, ctx.op1('IsInf', [ctx.input(0)]), [ctx.input(0)], 'bool')],
  LogicalNot: (ctx) => [elementwise(ctx, ctx.op1('Not', [ctx.input(0)]), [ctx.input(0)], 'bool')],
  Rsqrt: (ctx) => {
    const x = ctx.input(0);
    return [elementwise(ctx, ctx.op1('Reciprocal', [ctx.op1('Sqrt', [x])]), [x])];
  },
  Square: (ctx) => {
    const x = ctx.input(0);
    return [elementwise(ctx, ctx.op1('Mul', [x, x]), [x])];
  },
  Log1p: (ctx) => {
    const x = ctx.input(0);
    return [elementwise(ctx, ctx.op1('Log', [ctx.op1('Add', [x, scalarLike(ctx, x, 1)])]), [x])];
  },
  Expm1: (ctx) => {
    const x = ctx.input(0);
    return [elementwise(ctx, ctx.op1('Sub', [ctx.op1('Exp', [x]), scalarLike(ctx, x, 1)]), [x])];
  },
  Add: binary('Add'),
  AddV2: binary('Add'),
  BiasAdd: (ctx) => {
    const x = ctx.input(0);
    let bias = ctx.input(1);
    if (ctx.attrs.string('data_format', 'NHWC') === 'NCHW') {
      const rank = ctx.rankOf(x) ?? 4;
      // bias [C] broadcast along axis 1: [C, 1, ..., 1]
      bias = ctx.op1('Unsqueeze', [bias, ctx.int64s(Array.from({ length: rank - 2 }, (_, i) => i + 1))]);
    }
    return [elementwise(ctx, ctx.op1('Add', [x, bias]), [x])];
  },
  Sub: binary('Sub'),
  Mul: binary('Mul'),
  RealDiv: binary('Div'),
  DivNoNan: (ctx) => {
    const a = ctx.input(0);
    const b = ctx.input(1);
    const zero = scalarLike(ctx, b, 0);
    const safe = ctx.op1('Where', [ctx.op1('Equal', [b, zero]), scalarLike(ctx, b, 1), b]);
    return [elementwise(ctx, ctx.op1('Where', [ctx.op1('Equal', [b, zero]), zero, ctx.op1('Div', [a, safe])]), [a, b])];
  },
  Div: (ctx) => {
    const a = ctx.input(0);
    const b = ctx.input(1);
    const type = ctx.attrs.dtype('T', 'float32');
    // TF's Div on integers floors (Python semantics); ONNX Div truncates
    if (isIntegerType(type) && !type.startsWith('u')) return [elementwise(ctx, floorDivInt(ctx, a, b), [a, b])];
    return [elementwise(ctx, ctx.op1('Div', [a, b]), [a, b])];
  },
  FloorDiv: (ctx) => {
    const a = ctx.input(0);
    const b = ctx.input(1);
    const type = ctx.attrs.dtype('T', 'float32');
    if (isIntegerType(type)) return [elementwise(ctx, type.startsWith('u') ? ctx.op1('Div', [a, b]) : floorDivInt(ctx, a, b), [a, b])];
    return [elementwise(ctx, ctx.op1('Floor', [ctx.op1('Div', [a, b])]), [a, b])];
  },
  FloorMod: (ctx) => {
    const a = ctx.input(0);
    const b = ctx.input(1);
    const type = ctx.attrs.dtype('T', 'float32');
    if (isIntegerType(type)) return [elementwise(ctx, ctx.op1('Mod', [a, b], { fmod: attr.int(0) }), [a, b])];
    // x - floor(x / y) * y: the result takes the divisor's sign, as TF's floormod does
    const q = ctx.op1('Floor', [ctx.op1('Div', [a, b])]);
    return [elementwise(ctx, ctx.op1('Sub', [a, ctx.op1('Mul', [q, b])]), [a, b])];
  },
  Mod: (ctx) => {
    const a = ctx.input(0);
    const b = ctx.input(1);
    const type = ctx.attrs.dtype('T', 'float32');
    return [elementwise(ctx, ctx.op1('Mod', [a, b], { fmod: attr.int(isIntegerType(type) ? 0 : 1) }), [a, b])];
  },
  Maximum: binary('Max'),
  Minimum: binary('Min'),
  Pow: binary('Pow'),
  SquaredDifference: (ctx) => {
    const a = ctx.input(0);
    const b = ctx.input(1);
    const d = ctx.op1('Sub', [a, b]);
    return [elementwise(ctx, ctx.op1('Mul', [d, d]), [a, b])];
  },
  Greater: binary('Greater', 'bool'),
  GreaterEqual: binary('GreaterOrEqual', 'bool'),
  Less: binary('Less', 'bool'),
  LessEqual: binary('LessOrEqual', 'bool'),
  Equal: binary('Equal', 'bool'),
  NotEqual: (ctx) => {
    const a = ctx.input(0);
    const b = ctx.input(1);
    return [elementwise(ctx, ctx.op1('Not', [ctx.op1('Equal', [a, b])]), [a, b], 'bool')];
  },
  LogicalAnd: binary('And', 'bool'),
  LogicalOr: binary('Or', 'bool'),
  AddN: (ctx) => {
    const inputs = Array.from({ length: ctx.inputCount }, (_, i) => ctx.input(i));
    if (inputs.length === 1) return [inputs[0] as Value];
    return [elementwise(ctx, ctx.op1('Sum', inputs), inputs)];
  },
  Cast: (ctx) => {
    const x = ctx.input(0);
    const to = ctx.attrs.dtype('DstT');
    const rank = ctx.rankOf(x);
    if (ctx.dtypeOf(x) === to) return [x];
    return [ctx.note(ctx.cast(x, to), { dtype: to, ...(rank !== undefined ? { rank } : {}) })];
  },
  Softmax: (ctx) => [elementwise(ctx, ctx.op1('Softmax', [ctx.input(0)], { axis: attr.int(-1) }), [ctx.input(0)])],
  LogSoftmax: (ctx) => [elementwise(ctx, ctx.op1('LogSoftmax', [ctx.input(0)], { axis: attr.int(-1) }), [ctx.input(0)])],
  Select: (ctx) => {
    const cond = ctx.input(0);
    const t = ctx.input(1);
    const e = ctx.input(2);
    const rc = ctx.rankOf(cond);
    const rt = ctx.rankOf(t);
    let c = cond;
    // TF1 Select with a vector condition picks rows of higher-rank operands
    if (rc === 1 && rt !== undefined && rt > 1)
      c = ctx.op1('Unsqueeze', [cond, ctx.int64s(Array.from({ length: rt - 1 }, (_, i) => i + 1))]);
    return [elementwise(ctx, ctx.op1('Where', [c, t, e]), [t, e], ctx.dtypeOf(t))];
  },
  SelectV2: (ctx) => {
    const inputs = [ctx.input(0), ctx.input(1), ctx.input(2)];
    return [elementwise(ctx, ctx.op1('Where', inputs), inputs, ctx.dtypeOf(ctx.input(1)))];
  },
  Atan2: (ctx) => {
    // atan(y / x), moved by ±pi where x < 0; 0 where both are 0 (as TF)
    const y = ctx.input(0);
    const x = ctx.input(1);
    const type = ctx.dtypeOf(y) ?? 'float32';
    const zero = ctx.scalar(0, type);
    const base = ctx.op1('Atan', [ctx.op1('Div', [y, x])]);
    const turn = ctx.op1('Where', [ctx.op1('GreaterOrEqual', [y, zero]), ctx.scalar(Math.PI, type), ctx.scalar(-Math.PI, type)]);
    const moved = ctx.op1('Add', [base, ctx.op1('Where', [ctx.op1('Less', [x, zero]), turn, zero])]);
    const origin = ctx.op1('And', [ctx.op1('Equal', [x, zero]), ctx.op1('Equal', [y, zero])]);
    return [elementwise(ctx, ctx.op1('Where', [origin, zero, moved]), [y, x])];
  },
  ClipByValue: (ctx) => {
    const x = ctx.input(0);
    return [elementwise(ctx, ctx.op1('Min', [ctx.op1('Max', [x, ctx.input(1)]), ctx.input(2)]), [x])];
  },
};

/** floor(a / b) for signed integers: truncated quotient minus one where the signs differ and b does not divide a. */
function floorDivInt(ctx: ConvertContext, a: Value, b: Value): Value {
  const q = ctx.op1('Div', [a, b]);
  const r = ctx.op1('Sub', [a, ctx.op1('Mul', [q, b])]);
  const type = ctx.dtypeOf(a) ?? ctx.attrs.dtype('T', 'int32');
  const zero = ctx.scalar(0, type);
  const one = ctx.scalar(1, type);
  const signsDiffer = ctx.op1('Xor', [ctx.op1('Less', [r, zero]), ctx.op1('Less', [b, zero])]);
  const adjust = ctx.op1('And', [ctx.op1('Not', [ctx.op1('Equal', [r, zero])]), signsDiffer]);
  return ctx.op1('Sub', [q, ctx.op1('Where', [adjust, one, zero])]);
}
