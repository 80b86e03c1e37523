// TreeEnsemble (ai.onnx.ml v5): the unified tree op. Each tree is walked from its root through
// branch nodes to a leaf; leaf weights are aggregated per target, then post-transformed.
import { type AttrReader, type DataType, type HostTensor, InferenceError, numberToFloat16, readNumber } from '@tsge/metadef';
import { kernelError, requireTensor } from '../common/tensor-infer.js';
import { whereOf, ML_DOMAIN } from '@tsge/ops/kernel-support';
import { defineKernel } from '../define.js';

const MODE = { LEQ: 0, LT: 1, GTE: 2, GT: 3, EQ: 4, NEQ: 5, MEMBER: 6 } as const;
const AGGREGATE = { AVERAGE: 0, SUM: 1, MIN: 2, MAX: 3 } as const;
const POST = { NONE: 0, SOFTMAX: 1, LOGISTIC: 2, SOFTMAX_ZERO: 3, PROBIT: 4 } as const;

interface Ensemble {
  readonly featureIds: readonly number[];
  readonly modes: readonly number[];
  readonly splits: readonly number[];
  readonly trueIds: readonly number[];
  readonly falseIds: readonly number[];
  readonly trueLeaf: readonly number[];
  readonly falseLeaf: readonly number[];
  readonly missingTrue: readonly number[];
  readonly members: readonly (ReadonlySet<number> | undefined)[];
  readonly leafTargets: readonly number[];
  readonly leafWeights: readonly number[];
  readonly roots: readonly number[];
  readonly targets: number;
  readonly aggregate: number;
  readonly post: number;
}

function numbers(t: HostTensor | undefined): number[] {
  return t ? Array.from({ length: t.data.length }, (_, i) => readNumber(t, i)) : [];
}

function readEnsemble(attrs: AttrReader, where: string): Ensemble {
  const modes = numbers(attrs.tensor('nodes_modes'));
  const count = modes.length;
  const ints = (name: string, required = true): number[] => {
    if (!attrs.has(name)) {
      if (required) throw new InferenceError(`${where}: attribute ${name} is required`);
      return new Array<number>(count).fill(0);
    }
    return [...attrs.ints(name)];
  };
  const featureIds = ints('nodes_featureids');
  const trueIds = ints('nodes_truenodeids');
  const falseIds = ints('nodes_falsenodeids');
  const trueLeaf = ints('nodes_trueleafs');
  const falseLeaf = ints('nodes_falseleafs');
  const missingTrue = ints('nodes_missing_value_tracks_true', false);
  const splits = numbers(attrs.tensor('nodes_splits'));
  for (const list of [featureIds, trueIds, falseIds, trueLeaf, falseLeaf, missingTrue, splits])
    if (list.length !== count) throw new InferenceError(`${where}: node attributes differ in length`);
  // members are listed in node order, each set ended by a NaN
  const memberValues = numbers(attrs.tensor('membership_values'));
  const members: (Set<number> | undefined)[] = new Array(count).fill(undefined);
  let cursor = 0;
  for (let n = 0; n < count; n++) {
    if (modes[n] !== MODE.MEMBER) continue;
    const set = new Set<number>();
    while (cursor < memberValues.length && !Number.isNaN(memberValues[cursor])) set.add(memberValues[cursor++] as number);
    cursor++;
    members[n] = set;
  }
  const leafTargets = ints('leaf_targetids');
  const leafWeights = numbers(attrs.tensor('leaf_weights'));
  if (leafWeights.length !== leafTargets.length) throw new InferenceError(`${where}: leaf_weights and leaf_targetids differ in length`);
  const ensemble: Ensemble = {
    featureIds,
    modes,
    splits,
    trueIds,
    falseIds,
    trueLeaf,
    falseLeaf,
    missingTrue,
    members,
    leafTargets,
    leafWeights,
    roots: ints('tree_roots'),
    targets: attrs.int('n_targets', 1),
    aggregate: attrs.int('aggregate_function', AGGREGATE.SUM),
    post: attrs.int('post_transform', POST.NONE),
  };
  for (const t of leafTargets)
    if (t < 0 || t >= ensemble.targets) throw new InferenceError(`${where}: leaf target ${t} is outside n_targets`);
  return ensemble;
}

function branchTaken(e: Ensemble, node: number, value: number): boolean {
  if (Number.isNaN(value) && e.missingTrue[node]) return true;
  const split = e.splits[node] as number;
  switch (e.modes[node]) {
    case MODE.LEQ:
      return value <= split;
    case MODE.LT:
      return value < split;
    case MODE.GTE:
      return value >= split;
    case MODE.GT:
      return value > split;
    case MODE.EQ:
      return value === split;
    case MODE.NEQ:
      return value !== split;
    default:
      return e.members[node]?.has(value) ?? false;
  }
}

/** The leaf index a row reaches from `root`; throws on malformed trees (cycles, bad ids). */
function walk(e: Ensemble, root: number, row: Float64Array, rowStart: number, features: number): number {
  const count = e.modes.length;
  // a root that is a leaf on both sides to one id is a single-leaf tree
  if (e.trueLeaf[root] && e.falseLeaf[root] && e.trueIds[root] === e.falseIds[root]) return e.trueIds[root] as number;
  let node = root;
  for (let steps = 0; steps <= count; steps++) {
    if (node < 0 || node >= count) break;
    const f = e.featureIds[node] as number;
    if (f < 0 || f >= features) throw new RangeError(`feature ${f} is outside ${features} features`);
    const taken = branchTaken(e, node, row[rowStart + f] as number);
    const next = (taken ? e.trueIds[node] : e.falseIds[node]) as number;
    if (taken ? e.trueLeaf[node] : e.falseLeaf[node]) return next;
    node = next;
  }
  throw new RangeError(`tree at root ${root} does not reach a leaf`);
}

const FLOAT_MAX: Partial<Record<DataType, number>> = { float32: 3.4028234663852886e38, float64: Number.MAX_VALUE, float16: 65504 };

/** Inverse of the standard normal CDF via erfinv (Giles' single-precision approximation). */
function probit(p: number): number {
  const x = 2 * p - 1;
  let w = -Math.log((1 - x) * (1 + x));
  let r: number;
  if (w < 5) {
    w -= 2.5;
    r = 2.81022636e-8;
    for (const c of [3.43273939e-7, -3.5233877e-6, -4.39150654e-6, 0.00021858087, -0.00125372503, -0.00417768164, 0.246640727, 1.50140941])
      r = c + r * w;
  } else {
    w = Math.sqrt(w) - 3;
    r = -0.000200214257;
    for (const c of [0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613, 0.00943887047, 1.00167406, 2.83297682])
      r = c + r * w;
  }
  return Math.SQRT2 * r * x;
}

function postTransform(row: Float64Array, post: number): void {
  const n = row.length;
  if (post === POST.LOGISTIC) for (let i = 0; i < n; i++) row[i] = 1 / (1 + Math.exp(-(row[i] as number)));
  else if (post === POST.PROBIT) for (let i = 0; i < n; i++) row[i] = probit(row[i] as number);
  else if (post === POST.SOFTMAX || post === POST.SOFTMAX_ZERO) {
    let max = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < n; i++) if (!(post === POST.SOFTMAX_ZERO && row[i] === 0)) max = Math.max(max, row[i] as number);
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const v = post === POST.SOFTMAX_ZERO && row[i] === 0 ? 0 : Math.exp((row[i] as number) - max);
      row[i] = v;
      sum += v;
    }
    for (let i = 0; i < n; i++) row[i] = sum === 0 ? 0 : (row[i] as number) / sum;
  }
}

export const treeEnsembleKernel = defineKernel({
  opType: 'TreeEnsemble',
  domain: ML_DOMAIN,
  compute(ctx) {
    const x = requireTensor(ctx, 0);
    let e: Ensemble;
    try {
      e = readEnsemble(ctx.attrs, whereOf(ctx));
    } catch (error) {
      throw kernelError(ctx, (error as Error).message);
    }
    const features = x.dims.length === 0 ? 1 : (x.dims[x.dims.length - 1] as number);
    const rows = features === 0 ? 0 : x.data.length / features;
    const values = new Float64Array(x.data.length);
    for (let i = 0; i < values.length; i++) values[i] = readNumber(x, i);
    const y = ctx.output(0, [rows, e.targets], x.type);
    const row = new Float64Array(e.targets);
    const limit = FLOAT_MAX[x.type] ?? Number.MAX_VALUE;
    for (let r = 0; r < rows; r++) {
      row.fill(e.aggregate === AGGREGATE.MIN ? limit : e.aggregate === AGGREGATE.MAX ? -limit : 0);
      for (const root of e.roots) {
        let leaf: number;
        try {
          leaf = walk(e, root, values, r * features, features);
        } catch (error) {
          throw kernelError(ctx, (error as Error).message);
        }
        const target = e.leafTargets[leaf];
        const weight = e.leafWeights[leaf];
        if (target === undefined || weight === undefined) throw kernelError(ctx, `leaf ${leaf} does not exist`);
        if (e.aggregate === AGGREGATE.MIN) row[target] = Math.min(row[target] as number, weight);
        else if (e.aggregate === AGGREGATE.MAX) row[target] = Math.max(row[target] as number, weight);
        else row[target] = (row[target] as number) + weight;
      }
      if (e.aggregate === AGGREGATE.AVERAGE && e.roots.length > 0)
        for (let t = 0; t < e.targets; t++) row[t] = (row[t] as number) / e.roots.length;
      postTransform(row, e.post);
      for (let t = 0; t < e.targets; t++) {
        const v = row[t] as number;
        if (x.type === 'float16') (y.data as Uint16Array)[r * e.targets + t] = numberToFloat16(v);
        else (y.data as Float64Array)[r * e.targets + t] = v;
      }
    }
  },
});
export const treeEnsembleKernels = [treeEnsembleKernel];
