/**
 * The layout of an integer convolution's weights as the compiler stores them for the WebAssembly
 * integer GEMM (tsge::RequantizedConv with the `packed_weight` attribute): int16 values w − w_zero_point
 * of the [M, C/group, KH, KW] weight, K = C/group·KH·KW per row, each row padded with zeros to
 * K16 = ⌈K/16⌉·16. Per group of M/group rows: blocks of 4 rows with element (r, k) at
 * ((k >> 1)·4 + r)·2 + (k & 1) from the block's start (row pairs side by side, one i32 per row and
 * pair of K: what the GEMM splats), then the group's last M/group mod 4 rows as plain rows. Every
 * row takes K16 elements, so row m starts at m·K16 (its block's start, for the rows of a block).
 * The tensor is [M, K16]; the attribute is [version, M, C/group, KH, KW].
 */
export const PACKED_WEIGHT = 'packed_weight';
const VERSION = 1;
/** Rows of a block. */
export const PACKED_WEIGHT_ROWS = 4;

/** The logical weight a `packed_weight` attribute describes. */
export interface PackedWeightShape {
  /** [M, C/group, KH, KW]. */
  readonly dims: readonly [number, number, number, number];
  /** Elements of a row: C/group·KH·KW. */
  readonly k: number;
  /** The padded row length. */
  readonly k16: number;
}

export const paddedRow = (k: number): number => Math.ceil(k / 16) * 16;

/** The attribute's ints for a weight of these dims. */
export function packedWeightAttr(dims: readonly number[]): number[] {
  return [VERSION, ...dims];
}

/** The shape an attribute describes, or why it is not one this layout knows. */
export function packedWeightShape(ints: readonly number[]): PackedWeightShape | string {
  if (ints.length !== 5 || ints[0] !== VERSION) return `expected [${VERSION}, M, C/group, KH, KW], got [${ints.join(', ')}]`;
  const dims = ints.slice(1) as [number, number, number, number];
  if (!dims.every((d) => Number.isInteger(d) && d > 0)) return `dims [${dims.join(', ')}] are not positive integers`;
  const k = dims[1] * dims[2] * dims[3];
  return { dims, k, k16: paddedRow(k) };
}

/** Why a packed tensor of `tensorDims` does not hold the weight `shape` describes for `group` groups (undefined when it does). */
export function packedWeightMismatch(shape: PackedWeightShape, tensorDims: readonly number[], group: number): string | undefined {
  const [m] = shape.dims;
  if (tensorDims.length !== 2 || tensorDims[0] !== m || tensorDims[1] !== shape.k16)
    return `the packed weight is [${tensorDims.join(', ')}], expected [${m}, ${shape.k16}]`;
  if (!Number.isInteger(group) || group < 1 || m % group !== 0) return `${m} rows do not split into ${group} groups`;
  return undefined;
}

/** Index in the packed data of element k of row m (rows in groups of `rowsPerGroup`). */
function packedIndex(m: number, k: number, rowsPerGroup: number, k16: number): number {
  const within = m % rowsPerGroup;
  const blockRows = rowsPerGroup - (rowsPerGroup % PACKED_WEIGHT_ROWS);
  if (within >= blockRows) return m * k16 + k;
  const r = within % PACKED_WEIGHT_ROWS;
  return (m - r) * k16 + ((k >> 1) * PACKED_WEIGHT_ROWS + r) * 2 + (k & 1);
}

/** Row-major [M, K] values (w − w_zero_point) in the packed layout. */
export function packIntWeights(values: ArrayLike<number>, shape: PackedWeightShape, group: number): Int16Array {
  const [m] = shape.dims;
  const { k, k16 } = shape;
  const out = new Int16Array(m * k16);
  const rows = m / group;
  const blockRows = rows - (rows % PACKED_WEIGHT_ROWS);
  for (let i = 0; i < m; i++) {
    const within = i % rows;
    const src = i * k;
    if (within >= blockRows) {
      for (let j = 0; j < k; j++) out[i * k16 + j] = values[src + j] as number;
      continue;
    }
    // packedIndex's block layout: ((j >> 1)·4 + r)·2 + (j & 1) from the block's start
    const r = within % PACKED_WEIGHT_ROWS;
    const base = (i - r) * k16 + 2 * r;
    for (let j = 0; j < k; j++) out[base + (j >> 1) * 2 * PACKED_WEIGHT_ROWS + (j & 1)] = values[src + j] as number;
  }
  return out;
}

/** The row-major [M, K] values of a packed weight. */
export function unpackIntWeights(packed: ArrayLike<number>, shape: PackedWeightShape, group: number): Int16Array {
  const [m] = shape.dims;
  const out = new Int16Array(m * shape.k);
  const rows = m / group;
  for (let i = 0; i < m; i++) for (let k = 0; k < shape.k; k++) out[i * shape.k + k] = packed[packedIndex(i, k, rows, shape.k16)] as number;
  return out;
}
