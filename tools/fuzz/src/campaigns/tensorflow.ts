// The TensorFlow GraphDef reader, binary (`.pb`) and text (`.pbtxt`), and the whole path on binary
// mutants. Seeds: the frozen GraphDefs of tf2onnx's tests and the graphs inside the tiny
// SavedModels (written by TensorFlow); as text, the same graphs printed from their schema.
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defaultRegistries } from '@tsge/ge';
import type { Graph } from '@tsge/metadef';
import { parseTensorflow, sniffGraphDef } from '@tsge/parser-tensorflow';
import type protobuf from 'protobufjs';
import type { FuzzCampaignV1, FuzzSeed } from '../campaign.js';
import { mutateBytes } from '../mutate/bytes.js';
import { mutateWire, shrinkWire } from '../mutate/protobuf-wire.js';
import { mutateText, shrinkText } from '../mutate/text.js';
import { schema, toProtoText } from './pbtxt.js';
import { compileAndRun, graphOf, seedsIn } from './shared.js';
import { sequenceGraphDef } from './tensorflow-sequence-seed.js';

/** The reader's own schema (the parser package's proto/), to take graphs out of SavedModels and print them as text. */
const TF_PROTO = fileURLToPath(new URL('../../../../packages/parsers/tensorflow/proto/tensorflow.proto', import.meta.url));

const frozenSeeds = (testdata: string): Promise<FuzzSeed[]> => seedsIn(testdata, 'models/tensorflow/tf2onnx', '.pb');

/** The GraphDef of each SavedModel's first MetaGraph, as binary protobuf. */
async function savedModelGraphs(testdata: string): Promise<FuzzSeed[]> {
  const dir = path.join(testdata, 'models/tensorflow/saved_model');
  const savedModel = schema(TF_PROTO).lookupType('tensorflow.SavedModel');
  const graphDef = schema(TF_PROTO).lookupType('tensorflow.GraphDef');
  const seeds: FuzzSeed[] = [];
  for (const name of (await readdir(dir, { withFileTypes: true }))
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()) {
    const file = path.join(dir, name, 'saved_model.pb');
    const message = savedModel.decode(new Uint8Array(await readFile(file))) as unknown as { metaGraphs: { graphDef?: protobuf.Message }[] };
    const graph = message.metaGraphs[0]?.graphDef;
    if (graph) seeds.push({ name: `${path.relative(testdata, file)}#graph_def`, bytes: graphDef.encode(graph).finish() });
  }
  return seeds;
}

interface TensorMessage {
  dtype?: number;
  tensorContent?: Uint8Array;
}

/** Splat values by dtype (DT_FLOAT, DT_INT32): TensorFlow repeats the last value to fill the shape. */
const SPLAT: ReadonlyMap<number, (content: Uint8Array) => object> = new Map<number, (content: Uint8Array) => object>([
  [1, (c: Uint8Array) => ({ floatVal: [new DataView(c.buffer, c.byteOffset).getFloat32(0, true)] })],
  [3, (c: Uint8Array) => ({ intVal: [new DataView(c.buffer, c.byteOffset).getInt32(0, true)] })],
]);

/**
 * A frozen GraphDef with each large float/int32 constant written as a splat of its first value:
 * the real graph's structure, printed as text in kilobytes rather than megabytes.
 */
function splatConstants(bytes: Uint8Array): Uint8Array {
  const graphDef = schema(TF_PROTO).lookupType('tensorflow.GraphDef');
  const graph = graphDef.decode(bytes) as unknown as { node: { attr: Record<string, { tensor?: TensorMessage }> }[] };
  for (const node of graph.node) {
    const tensor = Object.hasOwn(node.attr, 'value') ? node.attr.value?.tensor : undefined;
    const splat = tensor?.dtype !== undefined ? SPLAT.get(tensor.dtype) : undefined;
    if (!tensor || !splat || !tensor.tensorContent || tensor.tensorContent.length <= 64) continue;
    Object.assign(tensor, splat(tensor.tensorContent), { tensorContent: new Uint8Array(0) });
  }
  return graphDef.encode(graph as unknown as protobuf.Message).finish();
}

async function parseGraphDef(bytes: Uint8Array, file: string): Promise<Graph> {
  sniffGraphDef(bytes, file);
  return graphOf(await parseTensorflow({ bytes, path: file }, { extra: { ops: defaultRegistries().ops } }));
}

export const tensorflowPbCampaign: FuzzCampaignV1 = {
  specVersion: 'v1',
  name: 'tensorflow-pb',
  description:
    'binary GraphDefs (frozen graphs, SavedModel graphs), raw and protobuf-field mutations, through sniffGraphDef and parseTensorflow',
  extension: '.pb',
  seeds: async ({ testdata }) => [
    ...(await frozenSeeds(testdata)),
    ...(await savedModelGraphs(testdata)),
    { name: 'tensor-array-list-ops', bytes: sequenceGraphDef(schema(TF_PROTO).lookupType('tensorflow.GraphDef')) },
  ],
  mutate: (bytes, rng) => (rng.chance(0.3) ? mutateBytes(bytes, rng) : mutateWire(bytes, rng)),
  shrink: shrinkWire,
  async run(bytes) {
    await parseGraphDef(bytes, 'fuzz.pb');
  },
};

export const tensorflowPbtxtCampaign: FuzzCampaignV1 = {
  specVersion: 'v1',
  name: 'tensorflow-pbtxt',
  description:
    'text GraphDefs (the frozen graphs with large constants splatted, the SavedModel graphs), text and byte mutations, through sniffGraphDef and parseTensorflow',
  extension: '.pbtxt',
  async seeds({ testdata }) {
    const frozen = (await frozenSeeds(testdata)).map((s) => ({ name: `${s.name} (constants splatted)`, bytes: splatConstants(s.bytes) }));
    return [...frozen, ...(await savedModelGraphs(testdata))].map((s) => ({
      name: `${s.name}.pbtxt`,
      bytes: new TextEncoder().encode(toProtoText(TF_PROTO, 'tensorflow.GraphDef', s.bytes)),
    }));
  },
  mutate: mutateText,
  shrink: shrinkText,
  async run(bytes) {
    await parseGraphDef(bytes, 'fuzz.pbtxt');
  },
};

export const tensorflowRunCampaign: FuzzCampaignV1 = {
  specVersion: 'v1',
  name: 'tensorflow-run',
  description:
    'binary GraphDef protobuf-field mutants of the frozen graphs that run on generated feeds: parse, compile, load (1 thread) and run',
  extension: '.pb',
  // the GRU/LSTM graphs need feeds of their own shapes and the SavedModel graphs variables: neither runs
  seeds: async ({ testdata }) => [
    ...(await frozenSeeds(testdata)).filter((s) => /(ae0|fc-layers)\.frozen\.pb$/.test(s.name)),
    { name: 'tensor-array-list-ops', bytes: sequenceGraphDef(schema(TF_PROTO).lookupType('tensorflow.GraphDef')) },
  ],
  mutate: mutateWire,
  shrink: shrinkWire,
  async run(bytes) {
    await compileAndRun(await parseGraphDef(bytes, 'fuzz.pb'));
  },
};
