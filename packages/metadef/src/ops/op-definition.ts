import type { Diagnostic } from '../errors/diagnostic.js';
import type { AttrKind, AttrReader, AttrValue } from '../types/attr.js';
import type { DataType } from '../types/dtype.js';
import type { Shape } from '../types/shape.js';
import type { DimRange } from '../types/tensor-desc.js';
import type { HostTensor } from '../types/tensor.js';

/** How an input or output may appear. Variadic ones come last and take all remaining slots. */
export type ParamOption = 'required' | 'optional' | 'variadic';

export interface ParamSpec {
  readonly name: string;
  readonly option: ParamOption;
  /** A type-constraint name such as 'T', or a single concrete type ('int64'). */
  readonly type: string;
  /** For variadic params: the minimum count (default 1). */
  readonly minArity?: number;
  /** For variadic params: all slots must share one type (default true). */
  readonly homogeneous?: boolean;
}

export interface AttrSpec {
  readonly name: string;
  readonly kind: AttrKind;
  readonly required?: boolean;
  readonly default?: AttrValue;
}

export interface TypeConstraint {
  readonly name: string;
  readonly allowed: readonly DataType[];
  /** Sequence/optional element types: 'seq(float32)', 'optional(seq(int64))' ... */
  readonly allowedKinds?: readonly string[];
}

/** What inference knows of a value: dtype, shape and kind, and its content when it is constant. */
export interface ValueInfo {
  readonly dtype: DataType;
  readonly shape: Shape;
  readonly shapeRange?: readonly DimRange[];
  readonly kind?: 'tensor' | 'sequence' | 'optional';
  /** For sequences/optionals: the element's type/shape. */
  readonly element?: ValueInfo;
}

/**
 * The context of one shape/type inference call. The same function runs in the compiler (shapes
 * may be symbolic, content known only for constants) and in the executor (shapes concrete,
 * content of every input known).
 */
export interface InferenceContextV1 {
  readonly opType: string;
  readonly nodeName: string;
  readonly opsetVersion: number;
  readonly inputCount: number;
  readonly outputCount: number;
  readonly attrs: AttrReader;
  /** Input i, or undefined when an optional input is omitted. */
  input(index: number): ValueInfo | undefined;
  /** The content of input i when known (a constant, or any input at run time). */
  inputValue(index: number): HostTensor | undefined;
  setOutput(index: number, info: ValueInfo): void;
  /** Creates a fresh symbolic dim (for data-dependent sizes such as NonZero's count). */
  newSymbol(hint?: string): string;
  /** Infers the outputs of a subgraph attribute given its input infos (control flow ops). */
  inferSubgraph?(attrName: string, inputs: readonly (ValueInfo | undefined)[]): readonly (ValueInfo | undefined)[];
}

/** Thrown by inference functions for invalid models; the caller turns it into a diagnostic. */
export class InferenceError extends Error {
  constructor(
    message: string,
    readonly code: string = 'TSGE-E4001',
  ) {
    super(message);
    this.name = 'InferenceError';
  }
}

/**
 * How an op's outputs depend on its inputs, as TVM's FuseOps classifies them: `elementwise` (one
 * output element from the same element of each input), `broadcast` (elementwise with numpy
 * broadcasting), `injective` (each output element is one input element: reshape, transpose,
 * slice), `reduction`, `out-elemwise-fusable` (Conv, MatMul, Gemm: an elementwise epilogue can
 * fuse into their store) and `opaque` (nothing fuses across it). Absent means opaque.
 */
export type OpPatternKind = NonNullable<OpDefinitionV1['pattern']>;

/**
 * An operator definition: schema plus one inference function. Versioned (`specVersion: 'v1'`) so
 * op libraries can be published independently of the IR.
 */
export interface OpDefinitionV1 {
  readonly specVersion: 'v1';
  readonly domain: string;
  readonly type: string;
  /** The opset version these semantics date from (the canonical, latest ones). */
  readonly sinceVersion: number;
  readonly doc?: string;
  readonly inputs: readonly ParamSpec[];
  readonly outputs: readonly ParamSpec[];
  readonly attributes: readonly AttrSpec[];
  readonly typeConstraints: readonly TypeConstraint[];
  /** Shape/type inference; throws InferenceError on invalid input. */
  infer(ctx: InferenceContextV1): void;
  /** Optional schema checks beyond types and arity; returns diagnostics. */
  validate?(ctx: InferenceContextV1): readonly Diagnostic[];
  /** The op's fusion pattern kind (absent: opaque); see `OpPatternKind`. Written out so re-exports of this interface need no extra type. */
  readonly pattern?: 'elementwise' | 'broadcast' | 'injective' | 'reduction' | 'out-elemwise-fusable' | 'opaque';
}
