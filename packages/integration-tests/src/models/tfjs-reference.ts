// The independent reference for TensorFlow models: TensorFlow.js 4.22.0 on its wasm backend.
// A frozen GraphDef is converted in memory to the tfjs graph-model form (GraphDef as JSON, Const
// values moved into a weights buffer), as tfjs's converter does offline.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { HostTensor } from '@tsge/metadef';
import * as tf from '@tensorflow/tfjs';
import { setWasmPaths } from '@tensorflow/tfjs-backend-wasm';
import protobuf from 'protobufjs';

const require = createRequire(import.meta.url);
let ready: Promise<void> | undefined;

/** tfjs with the wasm backend, single-threaded (as tsge runs with threads: 1 in tests). */
export function tfjsWasm(): Promise<typeof tf> {
  ready ??= (async () => {
    const dir = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm/wasm-out/tfjs-backend-wasm.wasm'));
    setWasmPaths(`${dir}${path.sep}`);
    await tf.setBackend('wasm');
    await tf.ready();
  })();
  return ready.then(() => tf);
}

const TF_DTYPE_NAMES: Record<number, string> = {
  1: 'DT_FLOAT',
  2: 'DT_DOUBLE',
  3: 'DT_INT32',
  4: 'DT_UINT8',
  7: 'DT_STRING',
  9: 'DT_INT64',
  10: 'DT_BOOL',
};

/**
 * Converts GraphDef bytes (decoded with the schema in `protoFile`) into tfjs ModelArtifacts.
 * `overrides` replaces Placeholder nodes by constants (e.g. keep_prob = 1 for the RNN graphs).
 */
export function graphDefToArtifacts(bytes: Uint8Array, protoFile: string, overrides: Record<string, number> = {}): tf.io.ModelArtifacts {
  const root = protobuf.loadSync(protoFile);
  const GraphDef = root.lookupType('tensorflow.GraphDef');
  const TensorProto = root.lookupType('tensorflow.TensorProto');
  const graph = GraphDef.toObject(GraphDef.decode(bytes), { enums: String, longs: String, bytes: String, defaults: false }) as {
    node: { name: string; op: string; input?: string[]; attr?: Record<string, Record<string, unknown>> }[];
  };
  const specs: tf.io.WeightsManifestEntry[] = [];
  const buffers: ArrayBuffer[] = [];
  const decoded = GraphDef.decode(bytes) as unknown as { node: { name: string; attr: Record<string, { tensor?: unknown }> }[] };
  const byName = new Map(decoded.node.map((n) => [n.name, n]));
  for (const node of graph.node) {
    if (node.name in overrides) {
      node.op = 'Const';
      node.attr = { dtype: { type: 'DT_FLOAT' } };
      specs.push({ name: node.name, shape: [], dtype: 'float32' });
      buffers.push(Float32Array.of(overrides[node.name] as number).buffer);
      continue;
    }
    if (node.op !== 'Const') continue;
    const proto = byName.get(node.name)?.attr.value?.tensor as protobuf.Message | undefined;
    if (!proto) continue;
    const t = TensorProto.toObject(proto, { longs: Number, defaults: true }) as {
      dtype: number;
      tensorShape?: { dim?: { size: number }[] };
      tensorContent?: Uint8Array;
      floatVal?: number[];
      intVal?: number[];
      int64Val?: number[];
      boolVal?: boolean[];
      doubleVal?: number[];
    };
    const shape = (t.tensorShape?.dim ?? []).map((d) => Number(d.size));
    const count = shape.reduce((a, b) => a * b, 1);
    const dtypeName = TF_DTYPE_NAMES[t.dtype] ?? 'DT_FLOAT';
    let data: Float32Array | Int32Array | Uint8Array;
    const content = t.tensorContent?.length ? Uint8Array.from(t.tensorContent) : undefined;
    const fill = <T extends Float32Array | Int32Array | Uint8Array>(out: T, values: readonly number[]): T => {
      for (let i = 0; i < count; i++) out[i] = values.length ? (values[Math.min(i, values.length - 1)] as number) : 0;
      return out;
    };
    let dtype: 'float32' | 'int32' | 'bool';
    if (dtypeName === 'DT_FLOAT' || dtypeName === 'DT_DOUBLE') {
      dtype = 'float32';
      if (content && dtypeName === 'DT_FLOAT') data = new Float32Array(content.buffer);
      else if (content) data = Float32Array.from(new Float64Array(content.buffer));
      else data = fill(new Float32Array(count), dtypeName === 'DT_FLOAT' ? (t.floatVal ?? []) : (t.doubleVal ?? []));
    } else if (dtypeName === 'DT_INT32' || dtypeName === 'DT_INT64' || dtypeName === 'DT_UINT8') {
      dtype = 'int32';
      if (content && dtypeName === 'DT_INT32') data = new Int32Array(content.buffer);
      else if (content && dtypeName === 'DT_INT64') data = Int32Array.from(new BigInt64Array(content.buffer), (v) => Number(v));
      else if (content) data = Int32Array.from(content);
      else data = fill(new Int32Array(count), dtypeName === 'DT_INT64' ? (t.int64Val ?? []) : (t.intVal ?? []));
    } else if (dtypeName === 'DT_BOOL') {
      dtype = 'bool';
      data = content ? content.slice() : fill(new Uint8Array(count), (t.boolVal ?? []).map(Number));
    } else throw new Error(`reference converter: Const ${node.name} has dtype ${dtypeName}`);
    if (node.attr) delete node.attr.value;
    specs.push({ name: node.name, shape, dtype });
    buffers.push(data.slice().buffer as ArrayBuffer);
  }
  const total = buffers.reduce((a, b) => a + b.byteLength, 0);
  const weightData = new Uint8Array(total);
  let offset = 0;
  for (const b of buffers) {
    weightData.set(new Uint8Array(b), offset);
    offset += b.byteLength;
  }
  (graph as { versions?: unknown }).versions ??= { producer: 1 };
  return { format: 'graph-model', modelTopology: graph, weightSpecs: specs, weightData: weightData.buffer };
}

function toTf(t: HostTensor): tf.Tensor {
  if (t.type === 'float32') return tf.tensor(t.data as Float32Array, [...t.dims], 'float32');
  if (t.type === 'int32') return tf.tensor(t.data as Int32Array, [...t.dims], 'int32');
  if (t.type === 'bool') return tf.tensor(t.data as Uint8Array, [...t.dims], 'bool');
  throw new Error(`reference: input dtype ${t.type}`);
}

/** Runs a tfjs graph model (artifacts or a model.json handler) on the feeds; outputs by name. */
export async function runTfjsGraph(
  handler: tf.io.IOHandler,
  feeds: Record<string, HostTensor>,
  outputs: readonly string[],
): Promise<Record<string, HostTensor>> {
  const tfjs = await tfjsWasm();
  const model = await tfjs.loadGraphModel(handler);
  const inputs: Record<string, tf.Tensor> = {};
  for (const [name, t] of Object.entries(feeds)) inputs[name] = toTf(t);
  const result = await model.executeAsync(inputs, [...outputs]);
  const list = Array.isArray(result) ? result : [result];
  const out: Record<string, HostTensor> = {};
  for (const [i, t] of list.entries()) {
    const data = await t.data();
    const type = t.dtype === 'float32' ? 'float32' : t.dtype === 'bool' ? 'bool' : 'int32';
    out[outputs[i] as string] = { type, dims: [...t.shape], data: data as Float32Array } as HostTensor;
    t.dispose();
  }
  for (const t of Object.values(inputs)) t.dispose();
  model.dispose();
  return out;
}

/** An IOHandler over a model.json and its shards on disk (tfjs-node's file:// is not available here). */
export function folderHandler(modelJson: string): tf.io.IOHandler {
  return {
    load: async () => {
      const json = JSON.parse(readFileSync(modelJson, 'utf8')) as {
        modelTopology: object;
        format?: string;
        weightsManifest: { paths: string[]; weights: tf.io.WeightsManifestEntry[] }[];
        signature?: object;
        userDefinedMetadata?: { signature?: object };
      };
      const specs: tf.io.WeightsManifestEntry[] = [];
      const parts: Uint8Array[] = [];
      for (const group of json.weightsManifest) {
        specs.push(...group.weights);
        for (const p of group.paths) parts.push(new Uint8Array(readFileSync(path.join(path.dirname(modelJson), p))));
      }
      const data = new Uint8Array(parts.reduce((a, b) => a + b.length, 0));
      let at = 0;
      for (const p of parts) {
        data.set(p, at);
        at += p.length;
      }
      return {
        modelTopology: json.modelTopology,
        ...(json.format ? { format: json.format } : {}),
        weightSpecs: specs,
        weightData: data.buffer,
        ...(json.signature || json.userDefinedMetadata?.signature
          ? { signature: json.signature ?? json.userDefinedMetadata?.signature }
          : {}),
      };
    },
  };
}

/** Runs a tfjs layers model on one input; its outputs in order. */
export async function runTfjsLayers(handler: tf.io.IOHandler, input: HostTensor): Promise<HostTensor[]> {
  const tfjs = await tfjsWasm();
  const model = await tfjs.loadLayersModel(handler);
  const x = toTf(input);
  const result = model.predict(x);
  const list = Array.isArray(result) ? result : [result];
  const out: HostTensor[] = [];
  for (const t of list) {
    out.push({ type: 'float32', dims: [...t.shape], data: (await t.data()) as Float32Array } as HostTensor);
    t.dispose();
  }
  x.dispose();
  model.dispose();
  return out;
}
