/**
 * The layout of an integer matrix product's constant B[K, N] as the compiler stores it for the
 * WebAssembly integer GEMM (tsge::PackedMatMulInteger, `packed_weight` = [2, K, N, NP]): int16
 * values B − b_zero_point (one zero point, or one per column) in the panels that GEMM reads, which
 * a run used to build from the bytes. Columns go in panels of NP (a multiple of 8; the last panel
 * takes what is left, rounded up to 8); within a panel of width w, element (k, c) sits at
 * ((k >> 1)·w + c)·2 + (k & 1), pairs of K side by side per column (an odd K gets a zero row,
 * columns past N are zeros). Panel q starts at element q·NP·K2, where K2 = 2·⌈K/2⌉, so the tensor
 * is [K2, N8] with N8 = ⌈N/8⌉·8.
 */
const VERSION = 2;
/** Panel bytes the GEMM keeps in cache while every block of rows runs over it. */
export const INT_PANEL_BYTES = 256 * 1024;

/** Whether K products of bytes minus zero points (each at most 255²) sum inside int32, as the GEMM's lanes do. */
export const intSumsFit = (k: number): boolean => k * 255 * 255 < 2 ** 31;

/** The panel layout of a packed B[K, N]. */
export interface PackedPanelsShape {
  /** Rows of B (the product's depth). */
  readonly k: number;
  /** Columns of B. */
  readonly n: number;
  /** Columns of a full panel. */
  readonly np: number;
  /** K rounded up to even. */
  readonly k2: number;
  /** N rounded up to a multiple of 8. */
  readonly n8: number;
}

/** Panel columns for B[K, N]: as many as fit INT_PANEL_BYTES (at least 8), multiples of 8. */
export function intPanelColumns(k: number, n: number): number {
  const n8 = Math.ceil(n / 8) * 8;
  return Math.min(n8, Math.max(8, Math.floor(INT_PANEL_BYTES / (Math.ceil(k / 2) * 4)) & ~7));
}

/** The `packed_weight` ints for B[K, N] in panels of `np` columns. */
export function packedPanelsAttr(k: number, n: number, np: number): number[] {
  return [VERSION, k, n, np];
}

/** The layout a `packed_weight` attribute describes, or why it is not a panel layout. */
export function packedPanelsShape(ints: readonly number[]): PackedPanelsShape | string {
  if (ints.length !== 4 || ints[0] !== VERSION) return `expected [${VERSION}, K, N, NP], got [${ints.join(', ')}]`;
  const [, k, n, np] = ints as [number, number, number, number];
  if (![k, n, np].every((d) => Number.isInteger(d) && d > 0)) return `K ${k}, N ${n} and NP ${np} must be positive integers`;
  if (np % 8 !== 0) return `NP ${np} is not a multiple of 8`;
  return { k, n, np, k2: 2 * Math.ceil(k / 2), n8: Math.ceil(n / 8) * 8 };
}

/** Why a tensor of `dims` does not hold the panels `shape` describes (undefined when it does). */
export function packedPanelsMismatch(shape: PackedPanelsShape, dims: readonly number[]): string | undefined {
  if (dims.length !== 2 || dims[0] !== shape.k2 || dims[1] !== shape.n8)
    return `the packed B is [${dims.join(', ')}], expected [${shape.k2}, ${shape.n8}]`;
  return undefined;
}

/** Index in the packed data of element (k, c). */
function panelIndex(shape: PackedPanelsShape, k: number, c: number): number {
  const q = Math.floor(c / shape.np);
  const width = Math.min(shape.np, shape.n8 - q * shape.np);
  return q * shape.np * shape.k2 + ((k >> 1) * width + (c - q * shape.np)) * 2 + (k & 1);
}

/** Row-major [K, N] values (B − b_zero_point) in the panel layout. */
export function packIntPanels(values: ArrayLike<number>, shape: PackedPanelsShape): Int16Array {
  const out = new Int16Array(shape.k2 * shape.n8);
  for (let k = 0; k < shape.k; k++) for (let c = 0; c < shape.n; c++) out[panelIndex(shape, k, c)] = values[k * shape.n + c] as number;
  return out;
}

/** The row-major [K, N] values of packed panels. */
export function unpackIntPanels(packed: ArrayLike<number>, shape: PackedPanelsShape): Int16Array {
  const out = new Int16Array(shape.k * shape.n);
  for (let k = 0; k < shape.k; k++) for (let c = 0; c < shape.n; c++) out[k * shape.n + c] = packed[panelIndex(shape, k, c)] as number;
  return out;
}
