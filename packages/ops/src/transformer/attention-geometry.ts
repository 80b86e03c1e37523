// The shape agreements ONNX Attention needs between Q, K, V, the KV cache and the mask. One rule
// for shape inference (dims may be unknown: only known dims are compared) and for the kernel
// (dims concrete), so a model whose K and V disagree is refused before anything is copied.
import { type Dim, type Shape, isUnknownRank } from '@tsge/metadef';

export interface AttentionShapes {
  readonly q: Shape;
  readonly k: Shape;
  readonly v: Shape;
  readonly mask?: Shape | undefined;
  readonly pastKey?: Shape | undefined;
  readonly pastValue?: Shape | undefined;
  /** The q_num_heads / kv_num_heads attributes (3-D inputs). */
  readonly qHeads3d: number;
  readonly kvHeads3d: number;
}

const known = (d: Dim | undefined): d is number => typeof d === 'number' && d >= 0;

/** `a` and `b` differ where both are known. */
const differ = (a: Dim | undefined, b: Dim | undefined): boolean => known(a) && known(b) && a !== b;

/** [batch, heads, seq, head size] of a 3-D or 4-D operand (-1 where unknown), or a problem. */
function headDims(name: string, s: Shape, heads3d: number): [Dim, Dim, Dim, Dim] | string {
  if (s.length === 4) return [s[0] as Dim, s[1] as Dim, s[2] as Dim, s[3] as Dim];
  const hidden = s[2] as Dim;
  if (!(Number.isSafeInteger(heads3d) && heads3d > 0)) return `3-D ${name} needs a positive num_heads attribute, got ${heads3d}`;
  if (known(hidden) && hidden % heads3d !== 0) return `${name} hidden size ${hidden} is not divisible by ${heads3d} heads`;
  return [s[0] as Dim, heads3d, s[1] as Dim, known(hidden) ? hidden / heads3d : -1];
}

export function attentionShapesProblem(shapes: AttentionShapes): string | undefined {
  const { q: qs, k: ks, v: vs } = shapes;
  if (isUnknownRank(qs) || isUnknownRank(ks) || isUnknownRank(vs)) return undefined;
  const rank = qs.length;
  if ((rank !== 3 && rank !== 4) || ks.length !== rank || vs.length !== rank) return 'Q, K and V must all be 3-D or all 4-D';
  const q = headDims('Q', qs, shapes.qHeads3d);
  const k = headDims('K', ks, shapes.kvHeads3d);
  const v = headDims('V', vs, shapes.kvHeads3d);
  if (typeof q === 'string') return q;
  if (typeof k === 'string') return k;
  if (typeof v === 'string') return v;
  if (differ(q[0], k[0]) || differ(q[0], v[0])) return `Q, K and V have batch sizes ${q[0]}, ${k[0]} and ${v[0]}`;
  if (differ(k[1], v[1])) return `K has ${k[1]} heads but V has ${v[1]}`;
  if (known(q[1]) && known(k[1]) && (k[1] === 0 || q[1] % k[1] !== 0))
    return `${q[1]} query heads do not group over ${k[1]} key/value heads`;
  if (differ(k[2], v[2])) return `K has sequence length ${k[2]} but V has ${v[2]}`;
  if (differ(q[3], k[3])) return `Q head size ${q[3]} differs from K head size ${k[3]}`;
  const past = (name: string, p: Shape | undefined, cur: [Dim, Dim, Dim, Dim]): string | undefined => {
    if (p === undefined || isUnknownRank(p)) return undefined;
    if (p.length !== 4) return `${name} must be 4-D, got rank ${p.length}`;
    if (differ(p[0], cur[0]) || differ(p[1], cur[1]) || differ(p[3], cur[3]))
      return `${name} [${p.join(', ')}] does not match [batch ${cur[0]}, heads ${cur[1]}, *, head size ${cur[3]}]`;
    return undefined;
  };
  const pastProblem = past('past_key', shapes.pastKey, k) ?? past('past_value', shapes.pastValue, v);
  if (pastProblem) return pastProblem;
  const pk = shapes.pastKey;
  const pv = shapes.pastValue;
  if ((pk === undefined) !== (pv === undefined)) return 'past_key and past_value must be given together';
  if (pk && pv && !isUnknownRank(pk) && !isUnknownRank(pv) && differ(pk[2], pv[2]))
    return `past_key has sequence length ${pk[2]} but past_value has ${pv[2]}`;
  const mask = shapes.mask;
  if (mask && !isUnknownRank(mask)) {
    if (mask.length > 4) return `attn_mask has rank ${mask.length}; at most 4`;
    // broadcast to [batch, q heads, q seq, *]; the last axis may be shorter than the total (padded as masked)
    const target: Dim[] = [q[0], q[1], q[2]];
    for (let a = 0; a < mask.length - 1; a++) {
      const axis = 4 - mask.length + a;
      const d = mask[a] as Dim;
      if (known(d) && d !== 1 && differ(d, target[axis]))
        return `attn_mask [${mask.join(', ')}] does not broadcast to [${target.join(', ')}, *]`;
    }
  }
  return undefined;
}
