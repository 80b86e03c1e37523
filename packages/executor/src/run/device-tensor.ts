// Device tensors: tensors the user keeps in the executor's device memory across runs (a KV cache),
// fed without a copy and bound as outputs that kernels write in place.
import type { DataType, DeviceV1, HostTensor, RuntimeValue } from '@tsge/metadef';
import { TsgeError, isHostTensor, shapeSize, shapeToString } from '@tsge/metadef';

/**
 * A tensor in an executor's device memory (`Executor.createDeviceTensor`). Fed as an input it is
 * read where it is; bound to an output (`RunOptions.outputs`) the output is written into it, in
 * place where the kernel allows (GroupQueryAttention's present bound to its past: only the new
 * rows are written). `data` views device memory: reads see what the last run wrote.
 */
export interface DeviceTensor extends HostTensor {
  readonly location: 'device';
  /** Byte offset in device memory. */
  readonly offset: number;
}

/** A graph output bound to a device tensor for one run. */
export interface BoundOutput {
  readonly name: string;
  readonly tensor: DeviceTensor;
}

/** Marks an object as a device tensor (it may come from a worker message, so no identity check). */
export function isDeviceTensor(value: RuntimeValue | undefined): value is DeviceTensor {
  return (
    value !== undefined &&
    isHostTensor(value) &&
    (value as Partial<DeviceTensor>).location === 'device' &&
    typeof (value as Partial<DeviceTensor>).offset === 'number'
  );
}

/** Views of device tensors for one run, one per offset, so an input and an output bound to the same buffer are the same array. */
export function deviceViews(device: Pick<DeviceV1, 'view'>): (t: DeviceTensor) => HostTensor {
  const views = new Map<number, HostTensor>();
  return (t) => {
    let view = views.get(t.offset);
    if (!view) {
      view = { type: t.type, dims: [...t.dims], data: device.view(t.type, t.offset, shapeSize(t.dims) ?? 0) };
      views.set(t.offset, view);
    }
    return view;
  };
}

/** The bound output must have the dtype and dims the run produces. */
export function checkBound(output: string, bound: DeviceTensor, dtype: DataType, dims: readonly number[]): void {
  if (bound.type === dtype && bound.dims.length === dims.length && bound.dims.every((d, i) => d === dims[i])) return;
  throw TsgeError.of(
    'TSGE-E4154',
    { output, bound: `${bound.type} ${shapeToString(bound.dims)}`, actual: `${dtype} ${shapeToString(dims)}` },
    { output },
  );
}
