import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TsgeError, readRegularFile } from '@tsge/ge';
import type { io } from '@tensorflow/tfjs-core';

/** What loadGraphModel/loadLayersModel accept: a path, a `file://` URL, or a tfjs IOHandler. */
export type ModelSource = string | URL | io.IOHandler;

/** The model.json (as bytes and parsed), with the weight bytes when they came from an IOHandler. */
export interface ModelRead {
  readonly bytes: Uint8Array;
  readonly json: ModelJson;
  /** The model.json file, when read from disk (its folder holds the weight shards). */
  readonly file?: string;
  /** Weight shards by the names the model.json uses, when the model came from an IOHandler. */
  readonly sideFiles?: Readonly<Record<string, Uint8Array>>;
}

/** The parts of a model.json this adapter reads itself (the parser reads the rest). */
export interface ModelJson {
  readonly format?: string;
  readonly modelTopology?: unknown;
  readonly signature?: SignatureJson;
  readonly userDefinedMetadata?: { readonly signature?: SignatureJson; readonly structuredOutputKeys?: readonly string[] } & Record<
    string,
    unknown
  >;
  readonly modelInitializer?: { readonly node?: readonly unknown[] };
}

export interface SignatureJson {
  readonly inputs?: Readonly<Record<string, { readonly name?: string }>>;
  readonly outputs?: Readonly<Record<string, { readonly name?: string }>>;
}

/** The name weight data from an IOHandler is handed to the parser under. */
const WEIGHTS_FILE = 'weights.bin';

/** Reads a model from wherever the user pointed; `caller` names the API in messages, as tfjs does. */
export async function readModel(source: ModelSource | null | undefined, caller: string): Promise<ModelRead> {
  if (source === null || source === undefined) {
    throw TsgeError.of('TSGE-E8302', {
      source: String(source),
      reason: `modelUrl in ${caller}() cannot be null. Please provide a url or an IOHandler that loads the model`,
    });
  }
  if (typeof source === 'object' && !(source instanceof URL)) {
    if (typeof (source as Partial<io.IOHandler>).load !== 'function') {
      throw TsgeError.of('TSGE-E8302', {
        source: 'object',
        reason: 'Cannot proceed with model loading because the IOHandler provided does not have the `load` method implemented.',
      });
    }
    return fromArtifacts(await (source as io.IOHandler & { load: NonNullable<io.IOHandler['load']> }).load());
  }
  const file = await resolveFile(source);
  const bytes = await readRegularFile(file, { code: 'TSGE-E3001' });
  return { bytes, json: parseJson(bytes, file), file };
}

/** A path, or a `file://` URL as a path; other schemes are refused (tsge never downloads by itself). */
async function resolveFile(source: string | URL): Promise<string> {
  const text = source instanceof URL ? source.href : source;
  if (typeof text !== 'string') throw TsgeError.of('TSGE-E8302', { source: typeof text, reason: 'expected a path, a URL or an IOHandler' });
  let file: string;
  if (/^file:\/\//i.test(text)) {
    try {
      file = fileURLToPath(text);
    } catch (error) {
      throw TsgeError.of('TSGE-E8302', { source: text, reason: `not a file URL of this system: ${String(error)}` }, undefined, error);
    }
  } else if (/^https?:\/\//i.test(text)) {
    throw TsgeError.of('TSGE-E8302', {
      source: text,
      reason: 'tsge does not download models; pass tf.io.http(url) to fetch it with TensorFlow.js, or a local path',
    });
  } else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) {
    throw TsgeError.of('TSGE-E8302', {
      source: text,
      reason: 'unknown scheme; pass the tf.io handler for it (its load() is called), or a path',
    });
  } else {
    file = text;
  }
  // a folder means its model.json, as TensorFlow.js's file:// handler reads it
  const info = await stat(file).catch(() => undefined);
  return info?.isDirectory() ? path.join(file, 'model.json') : file;
}

function parseJson(bytes: Uint8Array, file: string | undefined): ModelJson {
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch (error) {
    throw TsgeError.of('TSGE-E8303', { reason: `model.json is not JSON: ${String(error)}` }, file ? { file } : undefined, error);
  }
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw TsgeError.of('TSGE-E8303', { reason: 'model.json is not a JSON object' }, file ? { file } : undefined);
  return json as ModelJson;
}

/** IOHandler artifacts as a model.json whose one weight group is the (joined) weight data. */
async function fromArtifacts(artifacts: io.ModelArtifacts | undefined): Promise<ModelRead> {
  if (typeof artifacts !== 'object' || artifacts === null)
    throw TsgeError.of('TSGE-E8303', { reason: 'the IOHandler returned no artifacts' });
  const topology = artifacts.modelTopology;
  if (topology === undefined || topology === null) throw TsgeError.of('TSGE-E8303', { reason: 'the artifacts have no modelTopology' });
  if (topology instanceof ArrayBuffer) {
    throw TsgeError.of('TSGE-E8303', { reason: 'modelTopology is binary (an ArrayBuffer); tsge reads the JSON topology of a model.json' });
  }
  const specs = artifacts.weightSpecs ?? [];
  let weights: Uint8Array | undefined;
  if (artifacts.weightData !== undefined) weights = joinBuffers(artifacts.weightData);
  else if (artifacts.getWeightStream) weights = await readStream(artifacts.getWeightStream());
  if (specs.length > 0 && !weights) throw TsgeError.of('TSGE-E8303', { reason: 'the artifacts have weightSpecs but no weightData' });
  const json = {
    format: artifacts.format,
    generatedBy: artifacts.generatedBy,
    convertedBy: artifacts.convertedBy,
    modelTopology: topology,
    signature: artifacts.signature,
    userDefinedMetadata: artifacts.userDefinedMetadata,
    modelInitializer: artifacts.modelInitializer,
    weightsManifest: [{ paths: weights ? [WEIGHTS_FILE] : [], weights: specs }],
  };
  const bytes = new TextEncoder().encode(JSON.stringify(json));
  return { bytes, json: json as ModelJson, ...(weights ? { sideFiles: { [WEIGHTS_FILE]: weights } } : {}) };
}

function joinBuffers(data: ArrayBuffer | readonly ArrayBuffer[]): Uint8Array {
  const parts = Array.isArray(data) ? data : [data as ArrayBuffer];
  for (const part of parts) {
    if (!(part instanceof ArrayBuffer) && !ArrayBuffer.isView(part))
      throw TsgeError.of('TSGE-E8303', { reason: 'weightData is neither an ArrayBuffer nor a list of them' });
  }
  return concat(parts.map((p) => (ArrayBuffer.isView(p) ? new Uint8Array(p.buffer, p.byteOffset, p.byteLength) : new Uint8Array(p))));
}

async function readStream(stream: ReadableStream<ArrayBuffer>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  const reader = stream.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    parts.push(ArrayBuffer.isView(value) ? new Uint8Array(value.buffer, value.byteOffset, value.byteLength) : new Uint8Array(value));
  }
  return concat(parts);
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/** 'graph' or 'layers', as the parser tells them apart (format, else the topology's shape). */
export function modelKind(json: ModelJson): 'graph' | 'layers' | undefined {
  const topology = json.modelTopology as Record<string, unknown> | undefined;
  if (json.format === 'graph-model' || Array.isArray(topology?.node)) return 'graph';
  if (json.format === 'layers-model' || (topology && ('class_name' in topology || 'model_config' in topology))) return 'layers';
  return undefined;
}
