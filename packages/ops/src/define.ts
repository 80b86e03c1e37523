import {
  type AttrSpec,
  type InferenceContextV1,
  type OpDefinitionV1,
  type ParamSpec,
  type TypeConstraint,
  ONNX_DOMAIN,
} from '@tsge/metadef';
import { onnxPatternKind } from './common/fusion-patterns.js';
import { checkTypeVars } from './common/type-vars.js';

export interface OpSpec {
  readonly type: string;
  readonly domain?: string;
  readonly sinceVersion: number;
  readonly doc?: string;
  readonly inputs?: readonly ParamSpec[];
  readonly outputs?: readonly ParamSpec[];
  readonly attributes?: readonly AttrSpec[];
  readonly typeConstraints?: readonly TypeConstraint[];
  readonly infer: (ctx: InferenceContextV1) => void;
  /** Fusion pattern kind; ONNX ops default to the table in common/fusion-patterns.ts. */
  readonly pattern?: OpDefinitionV1['pattern'];
}

/** Builds an op definition with empty defaults for omitted schema parts; inference first checks the inputs of each type variable agree. */
export function defineOp(spec: OpSpec): OpDefinitionV1 {
  const pattern = spec.pattern ?? (spec.domain === undefined || spec.domain === ONNX_DOMAIN ? onnxPatternKind(spec.type) : undefined);
  return {
    specVersion: 'v1',
    domain: spec.domain ?? ONNX_DOMAIN,
    type: spec.type,
    sinceVersion: spec.sinceVersion,
    ...(spec.doc ? { doc: spec.doc } : {}),
    inputs: spec.inputs ?? [],
    outputs: spec.outputs ?? [],
    attributes: spec.attributes ?? [],
    typeConstraints: spec.typeConstraints ?? [],
    ...(pattern ? { pattern } : {}),
    infer: (ctx) => {
      checkTypeVars(ctx, spec.inputs ?? [], spec.typeConstraints ?? []);
      spec.infer(ctx);
    },
  };
}

/** Shorthand param specs. */
export const param = {
  required: (name: string, type: string): ParamSpec => ({ name, option: 'required', type }),
  optional: (name: string, type: string): ParamSpec => ({ name, option: 'optional', type }),
  variadic: (name: string, type: string, minArity = 1, homogeneous = true): ParamSpec => ({
    name,
    option: 'variadic',
    type,
    minArity,
    homogeneous,
  }),
} as const;
