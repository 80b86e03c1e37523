import type { Dim } from '@tsge/metadef';

/**
 * Reflection mirrors an axis about its end elements, so each pad must be smaller than the axis (an
 * axis shorter than 2 cannot be reflected at all; onnxruntime rejects the same pads). Shared by
 * Pad's inference (pads known at compile time) and its kernel (pads known only at run time).
 */
export function reflectPadsProblem(shape: readonly Dim[], begin: readonly number[], end: readonly number[]): string | undefined {
  for (let axis = 0; axis < shape.length; axis++) {
    const d = shape[axis];
    if (typeof d !== 'number' || d < 0) continue;
    for (const pad of [begin[axis] as number, end[axis] as number])
      if (pad > 0 && pad >= d)
        return `mode reflect cannot pad axis ${axis} of size ${d} by ${pad}; each pad must be at most ${Math.max(0, d - 1)}`;
  }
  return undefined;
}
