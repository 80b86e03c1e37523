import { TsgeError, float16ToNumber } from '@tsge/metadef';
import { caffe } from '../generated/caffe.js';

/** A blob's values as float32 with its dims. */
export interface BlobValues {
  readonly dims: readonly number[];
  readonly data: Float32Array;
}

/** Dims of a blob: `shape`, else the legacy num/channels/height/width (leading 1s kept). */
export function blobDims(blob: caffe.IBlobProto): number[] {
  if (blob.shape) return (blob.shape.dim ?? []).map(Number);
  const legacy = [blob.num, blob.channels, blob.height, blob.width].map((v) => Number(v ?? 0));
  return legacy.some((d) => d > 0) ? legacy.map((d) => Math.max(d, 1)) : [];
}

/** Number of stored values, whichever field holds them. */
function valueCount(blob: caffe.IBlobProto): number {
  if (blob.data?.length) return blob.data.length;
  if (blob.double_data?.length) return blob.double_data.length;
  const raw = blob.raw_data;
  if (raw?.length) {
    const type = blob.raw_data_type ?? caffe.RawType.FLOAT;
    const width = type === caffe.RawType.FLOAT16 ? 2 : type === caffe.RawType.DOUBLE ? 8 : 4;
    return Math.floor(raw.length / width);
  }
  return 0;
}

/** Reads a blob; the count must match its dims (a caffemodel from another network is caught here). */
export function blobValues(blob: caffe.IBlobProto, layer: string, index: number): BlobValues {
  const dims = blobDims(blob);
  const expected = dims.reduce((a, b) => a * b, 1);
  const count = valueCount(blob);
  if (count !== expected || dims.some((d) => !Number.isSafeInteger(d) || d < 0)) {
    throw TsgeError.of('TSGE-E3207', { layer, index, actual: count, shape: `[${dims.join(',')}]`, expected }, { node: layer });
  }
  const data = new Float32Array(expected);
  if (blob.data?.length) data.set(blob.data);
  else if (blob.double_data?.length) data.set(blob.double_data);
  else if (blob.raw_data?.length) {
    const raw = blob.raw_data;
    const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength);
    const type = blob.raw_data_type ?? caffe.RawType.FLOAT;
    for (let i = 0; i < expected; i++) {
      if (type === caffe.RawType.FLOAT16) data[i] = float16ToNumber(view.getUint16(2 * i, true));
      else if (type === caffe.RawType.DOUBLE) data[i] = view.getFloat64(8 * i, true);
      else if (type === caffe.RawType.FLOAT) data[i] = view.getFloat32(4 * i, true);
      else
        throw TsgeError.of(
          'TSGE-E3207',
          { layer, index, actual: `raw type ${type}`, shape: `[${dims.join(',')}]`, expected: 'float data' },
          { node: layer },
        );
    }
  }
  return { dims, data };
}
