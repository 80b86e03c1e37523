import { type AttrReader, KOp, type KOpCode } from '@tsge/metadef';

/** Builds a description's expression: inputs and constants become registers, ops append SSA instructions. */
export interface ExpressionBuilder {
  constant(value: number): number;
  emit(op: KOpCode, a: number, b?: number): number;
}

/** An op's operands as registers (undefined: an omitted optional input), plus constant scalars when known. */
export interface LowerArgs {
  readonly regs: readonly (number | undefined)[];
  /** The value of input i when it is a one-element constant. */
  readonly scalars: readonly (number | undefined)[];
  readonly attrs: AttrReader;
}

type Lowering = (b: ExpressionBuilder, args: LowerArgs) => number | undefined;

const unary =
  (op: KOpCode): Lowering =>
  (b, { regs }) =>
    regs.length === 1 && regs[0] !== undefined ? b.emit(op, regs[0]) : undefined;
const binary =
  (op: KOpCode): Lowering =>
  (b, { regs }) =>
    regs.length === 2 && regs[0] !== undefined && regs[1] !== undefined ? b.emit(op, regs[0], regs[1]) : undefined;

function hardSigmoid(b: ExpressionBuilder, x: number, alpha: number, beta: number): number {
  const t = b.emit(KOp.add, b.emit(KOp.mul, x, b.constant(alpha)), b.constant(beta));
  return b.emit(KOp.clampLo, b.emit(KOp.clampHi, t, b.constant(1)), b.constant(0));
}

function sumOf(b: ExpressionBuilder, regs: readonly (number | undefined)[]): number | undefined {
  if (regs.length < 2 || regs.some((r) => r === undefined)) return undefined;
  let acc = regs[0] as number;
  for (const r of regs.slice(1)) acc = b.emit(KOp.add, acc, r as number);
  return acc;
}

/**
 * How each fusable ONNX op becomes instructions. An op missing here, or one whose attributes
 * or inputs this cannot express (say, a Clip bound that is not a constant), stays unfused.
 */
export const LOWERINGS: Readonly<Record<string, Lowering>> = {
  Add: binary(KOp.add),
  Sub: binary(KOp.sub),
  Mul: binary(KOp.mul),
  Div: binary(KOp.div),
  Max: binary(KOp.max),
  Min: binary(KOp.min),
  // variadic Sum and Mean as a chain of adds (over two or more inputs)
  Sum: (b, { regs }) => sumOf(b, regs),
  Mean: (b, { regs }) => {
    const sum = sumOf(b, regs);
    return sum === undefined ? undefined : b.emit(KOp.mul, sum, b.constant(1 / regs.length));
  },
  Pow: (b, args) => {
    const [x, y] = args.regs;
    if (x === undefined || y === undefined || args.regs.length !== 2) return undefined;
    // x² (norms, variances) without the slow general power
    return args.scalars[1] === 2 ? b.emit(KOp.mul, x, x) : b.emit(KOp.pow, x, y);
  },
  Neg: unary(KOp.neg),
  Abs: unary(KOp.abs),
  Relu: unary(KOp.relu),
  Sigmoid: unary(KOp.sigmoid),
  Tanh: unary(KOp.tanh),
  Exp: unary(KOp.exp),
  Log: unary(KOp.log),
  Sqrt: unary(KOp.sqrt),
  Reciprocal: unary(KOp.reciprocal),
  Floor: unary(KOp.floor),
  Ceil: unary(KOp.ceil),
  Erf: unary(KOp.erf),
  Identity: unary(KOp.copy),
  LeakyRelu: (b, { regs, attrs }) =>
    regs[0] === undefined ? undefined : b.emit(KOp.leaky, regs[0], b.constant(attrs.float('alpha', 0.01))),
  HardSigmoid: (b, { regs, attrs }) =>
    regs[0] === undefined ? undefined : hardSigmoid(b, regs[0], attrs.float('alpha', 0.2), attrs.float('beta', 0.5)),
  HardSwish: (b, { regs }) => (regs[0] === undefined ? undefined : b.emit(KOp.mul, regs[0], hardSigmoid(b, regs[0], 1 / 6, 0.5))),
  Swish: (b, { regs, attrs }) => {
    const x = regs[0];
    if (x === undefined) return undefined;
    const alpha = attrs.float('alpha', 1);
    return b.emit(KOp.mul, x, b.emit(KOp.sigmoid, alpha === 1 ? x : b.emit(KOp.mul, x, b.constant(alpha))));
  },
  Gelu: (b, { regs, attrs }) => {
    const x = regs[0];
    if (x === undefined || attrs.string('approximate', 'none') !== 'none') return undefined;
    const e = b.emit(KOp.erf, b.emit(KOp.div, x, b.constant(Math.SQRT2)));
    return b.emit(KOp.mul, b.emit(KOp.mul, x, b.constant(0.5)), b.emit(KOp.add, e, b.constant(1)));
  },
  // Clip's bounds must be constant scalars (or absent): they become immediate constants
  Clip: (b, { regs, scalars }) => {
    let y = regs[0];
    if (y === undefined) return undefined;
    if (regs[1] !== undefined) {
      if (scalars[1] === undefined) return undefined;
      y = b.emit(KOp.clampLo, y, b.constant(scalars[1]));
    }
    if (regs[2] !== undefined) {
      if (scalars[2] === undefined) return undefined;
      y = b.emit(KOp.clampHi, y, b.constant(scalars[2]));
    }
    return y === regs[0] ? b.emit(KOp.copy, y) : y;
  },
};
