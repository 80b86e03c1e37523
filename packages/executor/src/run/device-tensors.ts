import type { DeviceV1, HostTensor, TypedArray } from '@tsge/metadef';
import { TsgeError, isStaticShape, shapeSize, shapeToString } from '@tsge/metadef';
import type { TensorRef } from '@tsge/om';

/** Typed views of device memory: the device's own (`DeviceV1.view`, or a worker context's). */
export type DeviceViews = Pick<DeviceV1, 'view'>;

/** Byte offsets of the regions of one run: the weights (shared by all runs) and the run's arena. */
export interface RegionBases {
  readonly weights: number;
  readonly arena: number;
}

export function regionBase(ref: TensorRef, bases: RegionBases): number {
  if (ref.region === 'weights') return bases.weights;
  if (ref.region === 'arena') return bases.arena;
  throw new RangeError(`a ${ref.region} tensor has no place in device memory`);
}

/** The planned tensor at `ref`, viewed (no copy) in device memory; dims default to the planned shape. */
export function tensorAt(ref: TensorRef, views: DeviceViews, bases: RegionBases, dims?: readonly number[]): HostTensor {
  const shape = dims ?? (isStaticShape(ref.shape) ? ref.shape : undefined);
  if (!shape) throw new RangeError(`tensor of shape ${shapeToString(ref.shape)} has no static place`);
  const count = shapeSize(shape) ?? 0;
  return { type: ref.dtype, dims: [...shape], data: views.view(ref.dtype, regionBase(ref, bases) + ref.offset, count) };
}

/** A copy of a tensor's data that does not alias device memory. */
export function copyTensor(tensor: HostTensor): HostTensor {
  const data = Array.isArray(tensor.data) ? [...tensor.data] : (tensor.data as TypedArray).slice();
  return { type: tensor.type, dims: [...tensor.dims], data };
}

/** Copies `source` into a device view of the same dtype and element count. */
export function writeInto(target: HostTensor, source: HostTensor, what: string): void {
  if (Array.isArray(target.data) || Array.isArray(source.data))
    throw TsgeError.of('TSGE-E6007', { op: 'copy', node: what, reason: 'string tensors have no device representation' });
  if (target.data.length !== source.data.length) {
    throw TsgeError.of('TSGE-E6007', {
      op: 'copy',
      node: what,
      reason: `${source.data.length} elements do not fit the planned ${target.data.length}`,
    });
  }
  (target.data as Float32Array).set(source.data as Float32Array);
}
