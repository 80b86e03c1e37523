import { attr } from '@tsge/metadef';
import type { RawNode } from '../import/raw-node.js';
import { numberOf, numbersOf, setInput, takeAttr } from './node-edit.js';
import { float32Scalar, float32Vector, int64Vector } from './tensors.js';
import type { UpgradeContext, UpgradeRule } from './upgrade-context.js';

/** Moves an int-list attribute to input `index` as an int64 constant (absent attribute: no input). */
function intsToInput(node: RawNode, ctx: UpgradeContext, attrName: string, index: number): boolean {
  const values = numbersOf(takeAttr(node, attrName));
  if (values === undefined) return false;
  setInput(node, index, ctx.constant(attrName, int64Vector(values)));
  return true;
}

/** A float attribute becomes input `index`, cast like input 0 (old attrs were float whatever T was). */
function floatToInputLike(node: RawNode, ctx: UpgradeContext, attrName: string, index: number, fallback?: number): void {
  const value = numberOf(takeAttr(node, attrName)) ?? fallback;
  if (value === undefined) return;
  const constant = ctx.constant(attrName, float32Scalar(value));
  const [cast] = ctx.helper('CastLike', [constant, node.inputs[0] ?? '']);
  setInput(node, index, cast as string);
}

const reduceAxes = (opType: string, before: number): UpgradeRule => ({
  opType,
  before,
  description: `${opType}: axes attribute → input 1`,
  apply: (node, ctx) => {
    intsToInput(node, ctx, 'axes', 1);
  },
});

/** Softmax-like ops before opset 13 flatten to 2-D at `axis`; newer ones work along one axis. */
const coercedSoftmax = (opType: string): UpgradeRule => ({
  opType,
  before: 13,
  description: `${opType}: 2-D coercion at axis → Flatten, ${opType}(axis=-1), Reshape`,
  apply: (node, ctx) => {
    const axis = numberOf(node.attrs.get('axis')) ?? 1;
    const input = node.inputs[0] ?? '';
    const shape = ctx.shapeOf(input);
    const rank = shape && !(shape.length === 1 && shape[0] === -2) ? shape.length : undefined;
    if (rank !== undefined && (axis === rank - 1 || axis === -1)) {
      node.attrs.set('axis', attr.int(-1));
      return;
    }
    const [flat] = ctx.helper('Flatten', [input], { attrs: { axis: attr.int(axis) } });
    const [shapeOfInput] = ctx.helper('Shape', [input]);
    const [inner] = ctx.helper(node.opType, [flat as string], { attrs: { axis: attr.int(-1) } });
    // the node itself becomes the Reshape back to the input's shape
    node.opType = 'Reshape';
    node.inputs = [inner as string, shapeOfInput as string];
    node.attrs = new Map();
  },
});

/** Old elementwise ops broadcast B from `axis` when `broadcast=1`; numpy rules need trailing 1s. */
const legacyBroadcast = (opType: string): UpgradeRule => ({
  opType,
  before: 7,
  description: `${opType}: legacy broadcast/axis attributes → numpy broadcasting`,
  apply: (node, ctx) => {
    const broadcast = numberOf(takeAttr(node, 'broadcast'));
    const axis = numberOf(takeAttr(node, 'axis'));
    if (!broadcast || axis === undefined) return;
    const a = ctx.shapeOf(node.inputs[0] ?? '');
    const b = ctx.shapeOf(node.inputs[1] ?? '');
    if (!a || !b || (a.length === 1 && a[0] === -2) || (b.length === 1 && b[0] === -2)) {
      ctx.warn(`${node.name}: legacy broadcast with axis ${axis} needs known ranks; kept numpy broadcasting`);
      return;
    }
    const start = axis < 0 ? axis + a.length : axis;
    const trailing = a.length - start - b.length;
    if (trailing <= 0) return;
    const axes = Array.from({ length: trailing }, (_, i) => b.length + i);
    const [expanded] = ctx.helper('Unsqueeze', [node.inputs[1] ?? '', ctx.constant('axes', int64Vector(axes))]);
    node.inputs[1] = expanded as string;
  },
});

const CAST_NAMES: Readonly<Record<string, number>> = {
  FLOAT: 1,
  UINT8: 2,
  INT8: 3,
  UINT16: 4,
  INT16: 5,
  INT32: 6,
  INT64: 7,
  STRING: 8,
  BOOL: 9,
  FLOAT16: 10,
  DOUBLE: 11,
  UINT32: 12,
  UINT64: 13,
};

/** Upsample and opset-10 Resize: scale-only resizing with asymmetric coordinates, floor for nearest. */
function toResize(node: RawNode, ctx: UpgradeContext): void {
  const mode = node.attrs.get('mode');
  const modeName = mode?.kind === 'string' ? mode.value : 'nearest';
  let scales = node.inputs[1];
  const scaleAttr = numbersOf(takeAttr(node, 'scales'));
  if (scaleAttr) scales = ctx.constant('scales', float32Vector(scaleAttr));
  const heightScale = numberOf(takeAttr(node, 'height_scale'));
  const widthScale = numberOf(takeAttr(node, 'width_scale'));
  if (!scales && heightScale !== undefined && widthScale !== undefined)
    scales = ctx.constant('scales', float32Vector([1, 1, heightScale, widthScale]));
  node.opType = 'Resize';
  node.inputs = [node.inputs[0] ?? '', '', scales ?? ''];
  node.attrs = new Map([
    ['mode', attr.string(modeName === 'bilinear' ? 'linear' : modeName)],
    ['coordinate_transformation_mode', attr.string('asymmetric')],
    ['nearest_mode', attr.string('floor')],
  ]);
}

/** The upgrade table, applied in order; a rule may rename the op, and rules of the new name then apply. */
export const UPGRADE_RULES: readonly UpgradeRule[] = [
  reduceAxes('ReduceSum', 13),
  ...[
    'ReduceMean',
    'ReduceMax',
    'ReduceMin',
    'ReduceProd',
    'ReduceL1',
    'ReduceL2',
    'ReduceLogSum',
    'ReduceLogSumExp',
    'ReduceSumSquare',
  ].map((op) => reduceAxes(op, 18)),
  { opType: 'Squeeze', before: 13, description: 'Squeeze: axes attribute → input 1', apply: (n, c) => void intsToInput(n, c, 'axes', 1) },
  {
    opType: 'Unsqueeze',
    before: 13,
    description: 'Unsqueeze: axes attribute → input 1',
    apply: (n, c) => void intsToInput(n, c, 'axes', 1),
  },
  {
    opType: 'Split',
    before: 13,
    description: 'Split: split attribute → input 1; equal splits name num_outputs',
    apply: (node, ctx) => {
      if (!intsToInput(node, ctx, 'split', 1) && (node.inputs[1] ?? '') === '')
        node.attrs.set('num_outputs', attr.int(node.outputs.length));
    },
  },
  {
    opType: 'Split',
    before: 18,
    description: 'Split: equal splits name num_outputs',
    apply: (node) => {
      if ((node.inputs[1] ?? '') === '' && !node.attrs.has('num_outputs')) node.attrs.set('num_outputs', attr.int(node.outputs.length));
    },
  },
  {
    opType: 'Slice',
    before: 10,
    description: 'Slice: starts/ends/axes attributes → inputs 1-3',
    apply: (node, ctx) => {
      intsToInput(node, ctx, 'starts', 1);
      intsToInput(node, ctx, 'ends', 2);
      intsToInput(node, ctx, 'axes', 3);
    },
  },
  {
    opType: 'Pad',
    before: 11,
    description: 'Pad: pads (paddings) and value attributes → inputs 1-2',
    apply: (node, ctx) => {
      if (!intsToInput(node, ctx, 'pads', 1)) intsToInput(node, ctx, 'paddings', 1);
      floatToInputLike(node, ctx, 'value', 2);
    },
  },
  {
    opType: 'Clip',
    before: 11,
    description: 'Clip: min/max attributes → inputs 1-2',
    apply: (node, ctx) => {
      floatToInputLike(node, ctx, 'min', 1);
      floatToInputLike(node, ctx, 'max', 2);
    },
  },
  {
    opType: 'Dropout',
    before: 12,
    description: 'Dropout: ratio attribute → input 1; is_test dropped',
    apply: (node, ctx) => {
      takeAttr(node, 'is_test');
      const ratio = numberOf(takeAttr(node, 'ratio'));
      if (ratio !== undefined) setInput(node, 1, ctx.constant('ratio', float32Scalar(ratio)));
    },
  },
  {
    opType: 'BatchNormalization',
    before: 9,
    description: 'BatchNormalization: spatial/is_test attributes dropped',
    apply: (node) => {
      takeAttr(node, 'spatial');
      takeAttr(node, 'is_test');
    },
  },
  { opType: 'TopK', before: 10, description: 'TopK: k attribute → input 1', apply: (n, c) => void intsToInput(n, c, 'k', 1) },
  {
    opType: 'Scatter',
    before: Number.POSITIVE_INFINITY,
    description: 'Scatter → ScatterElements',
    apply: (node) => {
      node.opType = 'ScatterElements';
    },
  },
  { opType: 'Upsample', before: Number.POSITIVE_INFINITY, description: 'Upsample → Resize (asymmetric, floor)', apply: toResize },
  {
    opType: 'Resize',
    before: 11,
    description: 'Resize-10 (X, scales) → Resize (X, roi, scales), asymmetric, floor',
    apply: (node, ctx) => {
      if (node.inputs.length <= 2) toResize(node, ctx);
    },
  },
  coercedSoftmax('Softmax'),
  coercedSoftmax('LogSoftmax'),
  coercedSoftmax('Hardmax'),
  {
    opType: 'Cast',
    before: 6,
    description: 'Cast: `to` as a type name → type number',
    apply: (node) => {
      const to = node.attrs.get('to');
      if (to?.kind === 'string') node.attrs.set('to', attr.int(CAST_NAMES[to.value.toUpperCase()] ?? 0));
    },
  },
  { opType: 'Reshape', before: 5, description: 'Reshape: shape attribute → input 1', apply: (n, c) => void intsToInput(n, c, 'shape', 1) },
  {
    opType: 'Concat',
    before: 4,
    description: 'Concat: axis defaults to 1',
    apply: (node) => {
      if (!node.attrs.has('axis')) node.attrs.set('axis', attr.int(1));
    },
  },
  ...['Add', 'Sub', 'Mul', 'Div', 'Pow', 'And', 'Or', 'Xor', 'Equal', 'Greater', 'Less'].map(legacyBroadcast),
  {
    opType: 'Gemm',
    before: 7,
    description: 'Gemm: broadcast attribute dropped',
    apply: (node) => {
      takeAttr(node, 'broadcast');
    },
  },
  {
    opType: 'PRelu',
    before: 7,
    description: 'PRelu: per-channel slope [C] → [C,1,...] for numpy broadcasting',
    apply: (node, ctx) => {
      const x = ctx.shapeOf(node.inputs[0] ?? '');
      const slope = ctx.shapeOf(node.inputs[1] ?? '');
      if (!x || !slope || slope.length !== 1 || x.length < 3 || (x.length === 1 && x[0] === -2)) return;
      const axes = Array.from({ length: x.length - 2 }, (_, i) => i + 1);
      const [expanded] = ctx.helper('Unsqueeze', [node.inputs[1] ?? '', ctx.constant('axes', int64Vector(axes))]);
      node.inputs[1] = expanded as string;
    },
  },
];
