/** String ops: StringNormalizer, StringConcat, StringSplit and RegexFullMatch. */
import { type OpDefinitionV1, InferenceError, isUnknownRank } from '@tsge/metadef';
import { inferBroadcast, requireInput } from '../common/infer-helpers.js';
import { defineOp, param } from '../define.js';

/** Compiles a model-supplied pattern as a full-match RegExp; undefined when it is not valid. */
export function compileFullMatch(pattern: string): RegExp | undefined {
  try {
    return new RegExp(`^(?:${pattern})$`, 'u');
  } catch {
    try {
      return new RegExp(`^(?:${pattern})$`);
    } catch {
      return undefined;
    }
  }
}

export const stringOps: readonly OpDefinitionV1[] = [
  defineOp({
    type: 'StringNormalizer',
    sinceVersion: 10,
    inputs: [param.required('X', 'string')],
    outputs: [param.required('Y', 'string')],
    attributes: [
      { name: 'case_change_action', kind: 'string', default: { kind: 'string', value: 'NONE' } },
      { name: 'is_case_sensitive', kind: 'int', default: { kind: 'int', value: 0 } },
      { name: 'locale', kind: 'string', default: { kind: 'string', value: '' } },
      { name: 'stopwords', kind: 'strings', default: { kind: 'strings', value: [] } },
    ],
    infer: (ctx) => {
      const x = requireInput(ctx, 0);
      const filtered = ctx.attrs.strings('stopwords', []).length > 0;
      const width = filtered ? ctx.newSymbol('words') : isUnknownRank(x.shape) ? -1 : x.shape[x.shape.length - 1]!;
      ctx.setOutput(0, { dtype: 'string', shape: !isUnknownRank(x.shape) && x.shape.length === 2 ? [1, width] : [width] });
    },
  }),
  defineOp({
    type: 'StringConcat',
    sinceVersion: 20,
    inputs: [param.required('X', 'T'), param.required('Y', 'T')],
    outputs: [param.required('Z', 'T')],
    typeConstraints: [{ name: 'T', allowed: ['string'] }],
    infer: (ctx) => inferBroadcast(ctx, 'string'),
  }),
  defineOp({
    type: 'StringSplit',
    sinceVersion: 20,
    inputs: [param.required('X', 'T1')],
    outputs: [param.required('Y', 'T2'), param.required('Z', 'T3')],
    attributes: [
      { name: 'delimiter', kind: 'string' },
      { name: 'maxsplit', kind: 'int' },
    ],
    typeConstraints: [
      { name: 'T1', allowed: ['string'] },
      { name: 'T2', allowed: ['string'] },
      { name: 'T3', allowed: ['int64'] },
    ],
    infer: (ctx) => {
      const x = requireInput(ctx, 0);
      if (isUnknownRank(x.shape)) {
        ctx.setOutput(0, { dtype: 'string', shape: x.shape });
        ctx.setOutput(1, { dtype: 'int64', shape: x.shape });
        return;
      }
      ctx.setOutput(0, { dtype: 'string', shape: [...x.shape, ctx.newSymbol('tokens')] });
      ctx.setOutput(1, { dtype: 'int64', shape: x.shape });
    },
  }),
  defineOp({
    type: 'RegexFullMatch',
    sinceVersion: 20,
    inputs: [param.required('X', 'T1')],
    outputs: [param.required('Y', 'T2')],
    attributes: [{ name: 'pattern', kind: 'string', required: true }],
    typeConstraints: [
      { name: 'T1', allowed: ['string'] },
      { name: 'T2', allowed: ['bool'] },
    ],
    infer: (ctx) => {
      const x = requireInput(ctx, 0);
      if (!compileFullMatch(ctx.attrs.string('pattern')))
        throw new InferenceError(`RegexFullMatch ${ctx.nodeName}: the pattern is not a valid regex`);
      ctx.setOutput(0, { dtype: 'bool', shape: x.shape });
    },
  }),
];
