import type { DataType } from './dtype.js';
import type { Format } from './format.js';
import type { Shape } from './shape.js';

/** [min, max] of one dim; max -1 means unbounded. */
export type DimRange = readonly [number, number];

/**
 * Describes a tensor flowing along an edge. `shape`/`format` are the storage view the kernel
 * reads; `originShape`/`originFormat` keep the user's semantics (they differ after layout passes).
 */
export interface TensorDesc {
  dtype: DataType;
  shape: Shape;
  format: Format;
  originShape: Shape;
  originFormat: Format;
  shapeRange?: readonly DimRange[];
  /** Element type of a sequence, or what an optional holds; absent for plain tensors. */
  valueKind?: 'tensor' | 'sequence' | 'optional';
}

export function createTensorDesc(dtype: DataType, shape: Shape, format: Format = 'ND'): TensorDesc {
  return { dtype, shape: [...shape], format, originShape: [...shape], originFormat: format };
}

export function cloneTensorDesc(desc: TensorDesc): TensorDesc {
  return {
    ...desc,
    shape: [...desc.shape],
    originShape: [...desc.originShape],
    ...(desc.shapeRange ? { shapeRange: desc.shapeRange.map((r) => [r[0], r[1]] as const) } : {}),
  };
}
