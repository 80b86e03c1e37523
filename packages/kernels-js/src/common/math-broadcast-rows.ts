/**
 * Broadcast iteration in rows: the output is split into rows of contiguous elements, and for each
 * row every input is read from an offset with a step of 0 (broadcast) or 1. Dims of size 1 are
 * dropped and neighbouring dims that broadcast alike are merged, so equal shapes become one row.
 */
export interface BroadcastRows {
  readonly outDims: readonly number[];
  readonly total: number;
  readonly rowLength: number;
  readonly rowCount: number;
  /** offsets[input][row]: where row `row` starts in that input. */
  readonly offsets: readonly Int32Array[];
  /** steps[input]: 0 when the row reads one repeated element, else 1. */
  readonly steps: readonly number[];
}

/** Output dims of broadcasting `shapes` (numpy rules); undefined on a conflict. */
export function broadcastStaticDims(shapes: readonly (readonly number[])[]): number[] | undefined {
  let rank = 0;
  for (const s of shapes) rank = Math.max(rank, s.length);
  const out = new Array<number>(rank).fill(1);
  for (const s of shapes) {
    const off = rank - s.length;
    for (let i = 0; i < s.length; i++) {
      const d = s[i]!;
      const o = out[off + i]!;
      if (d === o || d === 1) continue;
      if (o === 1) out[off + i] = d;
      else return undefined;
    }
  }
  return out;
}

export function planBroadcastRows(inputDims: readonly (readonly number[])[], outDims: readonly number[]): BroadcastRows {
  const rank = outDims.length;
  let total = 1;
  for (const d of outDims) total *= d;
  // per kept dim: the out size and, per input, whether it is full (1) or broadcast (0)
  const sizes: number[] = [];
  const kinds: number[][] = inputDims.map(() => []);
  for (let j = 0; j < rank; j++) {
    const size = outDims[j]!;
    if (size === 1) continue;
    const dimKinds = inputDims.map((dims) => {
      const k = j - (rank - dims.length);
      return k >= 0 && dims[k] === size ? 1 : 0;
    });
    const last = sizes.length - 1;
    if (last >= 0 && dimKinds.every((kind, i) => kinds[i]![last] === kind)) {
      sizes[last] = sizes[last]! * size;
    } else {
      sizes.push(size);
      for (let i = 0; i < dimKinds.length; i++) kinds[i]!.push(dimKinds[i]!);
    }
  }
  const n = sizes.length;
  const rowLength = n === 0 ? 1 : sizes[n - 1]!;
  const rowCount = rowLength === 0 ? 0 : total / rowLength;
  const steps = kinds.map((k) => (n === 0 ? 0 : k[n - 1]!));
  // input strides over the collapsed dims
  const strides = kinds.map((k) => {
    const s = new Array<number>(n).fill(0);
    let acc = 1;
    for (let j = n - 1; j >= 0; j--) {
      if (k[j] === 1) {
        s[j] = acc;
        acc *= sizes[j]!;
      }
    }
    return s;
  });
  const offsets = inputDims.map(() => new Int32Array(rowCount));
  const index = new Array<number>(Math.max(0, n - 1)).fill(0);
  const position = new Array<number>(inputDims.length).fill(0);
  for (let row = 0; row < rowCount; row++) {
    for (let i = 0; i < position.length; i++) offsets[i]![row] = position[i]!;
    for (let j = n - 2; j >= 0; j--) {
      index[j]!++;
      for (let i = 0; i < position.length; i++) position[i]! += strides[i]![j]!;
      if (index[j]! < sizes[j]!) break;
      for (let i = 0; i < position.length; i++) position[i]! -= strides[i]![j]! * sizes[j]!;
      index[j] = 0;
    }
  }
  return { outDims, total, rowLength, rowCount, offsets, steps };
}
