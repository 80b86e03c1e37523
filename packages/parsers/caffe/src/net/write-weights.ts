import protobuf from 'protobufjs/minimal.js';
import type { BlobValues } from './blobs.js';

/** Field numbers of the messages written (caffe.proto). */
const NET_NAME = 1;
const NET_LAYER = 100;
const LAYER_NAME = 1;
const LAYER_TYPE = 2;
const LAYER_BLOBS = 7;
const BLOB_SHAPE = 7;
const BLOB_DATA = 5;
const SHAPE_DIM = 1;

const tag = (field: number, wire: number) => (field << 3) | wire;

/**
 * Writes a weights-only caffemodel (NetParameter with V2 layers: name, type, blobs). Float data
 * goes in as one packed byte run per blob; protobufjs' generic encoder queues one operation per
 * value, which real networks' hundreds of millions of weights do not survive.
 */
export function writeCaffemodel(
  name: string,
  layers: readonly { readonly name: string; readonly type: string; readonly blobs: readonly BlobValues[] }[],
): Uint8Array {
  const net = protobuf.Writer.create();
  net.uint32(tag(NET_NAME, 2)).string(name);
  for (const layer of layers) {
    const writer = protobuf.Writer.create();
    writer.uint32(tag(LAYER_NAME, 2)).string(layer.name);
    writer.uint32(tag(LAYER_TYPE, 2)).string(layer.type);
    for (const blob of layer.blobs) {
      const shape = protobuf.Writer.create();
      shape.uint32(tag(SHAPE_DIM, 2)).fork();
      for (const d of blob.dims) shape.int64(d);
      shape.ldelim();
      const bytes = new Uint8Array(blob.data.length * 4);
      const view = new DataView(bytes.buffer);
      for (let i = 0; i < blob.data.length; i++) view.setFloat32(4 * i, blob.data[i] as number, true);
      const message = protobuf.Writer.create();
      message.uint32(tag(BLOB_SHAPE, 2)).bytes(shape.finish());
      message.uint32(tag(BLOB_DATA, 2)).bytes(bytes);
      writer.uint32(tag(LAYER_BLOBS, 2)).bytes(message.finish());
    }
    net.uint32(tag(NET_LAYER, 2)).bytes(writer.finish());
  }
  return net.finish();
}
