import type { Feed, InferenceSession, TensorMetadata } from '@tsge/ge';
import { TsgeError } from '@tsge/ge';
import * as tf from '@tensorflow/tfjs-core';
import type { ModelJson } from './model-source.js';
import { shapeFits, tfDtypeOf, toFeed, toTfTensor } from './tensors.js';

/** What execute/predict take, as TensorFlow.js's models do. */
export type ModelInputs = tf.Tensor | tf.Tensor[] | tf.NamedTensorMap;

/** How a model's inputs are checked: graph models as tfjs's GraphModel, layers models as its LayersModel. */
export interface InputPolicy {
  /** Numeric tensors of another dtype are cast (tfjs's layers do not check input dtypes). */
  readonly castNumeric: boolean;
  /** The message for a shape that does not fit, in the words tfjs uses for this kind of model. */
  readonly shapeProblem: (name: string, expected: string, got: readonly number[]) => string;
}

/**
 * One loaded model: the tsge session and the name mapping between tfjs's names (signature keys,
 * `node:0`) and the session's. GraphModel and LayersModel wrap it with their own surfaces.
 */
export class ModelCore {
  readonly json: ModelJson;
  /** tfjs's names for the session's inputs and outputs (signature keys where the signature has them). */
  readonly inputNodes: readonly string[];
  readonly outputNodes: readonly string[];
  readonly #session: InferenceSession;
  readonly #policy: InputPolicy;
  readonly #inputAliases = new Map<string, string>();
  readonly #outputAliases = new Map<string, string>();
  #disposed = false;
  #released: Promise<void> | undefined;

  constructor(session: InferenceSession, json: ModelJson, policy: InputPolicy) {
    this.#session = session;
    this.json = json;
    this.#policy = policy;
    const signature = json.userDefinedMetadata?.signature ?? json.signature;
    this.inputNodes = this.#alias(session.inputNames, signature?.inputs, this.#inputAliases);
    this.outputNodes = this.#alias(session.outputNames, signature?.outputs, this.#outputAliases);
  }

  get inputMetadata(): readonly TensorMetadata[] {
    return this.#session.inputMetadata;
  }

  get outputMetadata(): readonly TensorMetadata[] {
    return this.#session.outputMetadata;
  }

  /** Maps each session name to its signature key (if any) and records every accepted spelling. */
  #alias(
    names: readonly string[],
    signature: Readonly<Record<string, { readonly name?: string }>> | undefined,
    aliases: Map<string, string>,
  ) {
    const keyOf = new Map<string, string>();
    for (const [key, tensor] of Object.entries(signature ?? {})) {
      const ref = typeof tensor?.name === 'string' ? tensor.name.replace(/:0$/, '') : undefined;
      if (ref !== undefined && names.includes(ref)) keyOf.set(ref, key);
    }
    for (const name of names) {
      aliases.set(name, name);
      if (!name.includes(':')) aliases.set(`${name}:0`, name);
      const key = keyOf.get(name);
      if (key !== undefined && !aliases.has(key)) aliases.set(key, name);
    }
    return names.map((name) => keyOf.get(name) ?? name);
  }

  /** The session's output names for tfjs's `outputs` argument (a name, a list, or the default outputs). */
  resolveOutputs(outputs: string | readonly string[] | undefined): string[] {
    const requested = outputs === undefined ? this.outputNodes : typeof outputs === 'string' ? [outputs] : outputs;
    return requested.map((name) => {
      const resolved = typeof name === 'string' ? this.#outputAliases.get(name) : undefined;
      if (resolved === undefined) {
        throw TsgeError.of('TSGE-E8308', { output: String(name), outputs: this.outputNodes.join(', ') });
      }
      return resolved;
    });
  }

  /** Runs the session on tfjs inputs and returns the requested outputs as tf.Tensors, in order. */
  async run(inputs: ModelInputs, outputs: readonly string[]): Promise<tf.Tensor[]> {
    if (this.#disposed) throw TsgeError.of('TSGE-E8311');
    const byName = this.#normalize(inputs, outputs);
    const feeds: Record<string, Feed> = {};
    for (const meta of this.#session.inputMetadata) {
      const tensor = byName.get(meta.name) as tf.Tensor;
      feeds[meta.name] = await toFeed(meta.name, tensor, meta.dtype, this.#policy.castNumeric);
    }
    const results = await this.#session.run(feeds, [...new Set(outputs)]);
    return outputs.map((name) => toTfTensor(name, results[name]));
  }

  /** tfjs's three input forms as session input name → tensor, checked as tfjs checks them. */
  #normalize(inputs: ModelInputs, outputs: readonly string[]): Map<string, tf.Tensor> {
    const metadata = this.#session.inputMetadata;
    const byName = new Map<string, tf.Tensor>();
    if (inputs instanceof tf.Tensor || Array.isArray(inputs)) {
      const list = Array.isArray(inputs) ? inputs : [inputs];
      if (list.length !== metadata.length) throw TsgeError.of('TSGE-E8306', { expected: metadata.length, given: list.length });
      for (const [i, meta] of metadata.entries()) byName.set(meta.name, list[i] as tf.Tensor);
    } else if (typeof inputs === 'object' && inputs !== null) {
      const unknown: string[] = [];
      for (const [key, tensor] of Object.entries(inputs)) {
        const name = this.#inputAliases.get(key);
        if (name === undefined) unknown.push(key);
        else byName.set(name, tensor);
      }
      if (unknown.length > 0) throw TsgeError.of('TSGE-E8305', { keys: unknown.join(',') });
      const missing = metadata.filter((meta) => !byName.has(meta.name)).map((meta) => meta.name);
      if (missing.length > 0) {
        throw TsgeError.of('TSGE-E8307', { outputs: outputs.join(','), inputs: Object.keys(inputs).join(','), missing: missing.join(',') });
      }
    } else {
      throw TsgeError.of('TSGE-E8309', { input: '(all)', reason: 'expected a tf.Tensor, an array of them or a NamedTensorMap' });
    }
    for (const meta of metadata) {
      const tensor = byName.get(meta.name);
      if (!(tensor instanceof tf.Tensor)) throw TsgeError.of('TSGE-E8309', { input: meta.name, reason: 'is not a tf.Tensor' });
      if (!shapeFits(tensor.shape, meta.shape)) {
        const expected = meta.shape.map((d) => (typeof d === 'number' && d >= 0 ? d : -1)).join(',');
        throw TsgeError.of('TSGE-E8309', { input: meta.name, reason: this.#policy.shapeProblem(meta.name, expected, tensor.shape) });
      }
      if (tfDtypeOf(meta.dtype) === undefined)
        throw TsgeError.of('TSGE-E8309', { input: meta.name, reason: `tfjs has no dtype for ${meta.dtype}` });
    }
    return byName;
  }

  get disposed(): boolean {
    return this.#disposed;
  }

  /** Frees the session (device memory, workers); later runs are TSGE-E8311. */
  release(): Promise<void> {
    this.#disposed = true;
    this.#released ??= this.#session.release();
    return this.#released;
  }
}

/** tfjs's modelVersion: the GraphDef's producer and min consumer versions. */
export function modelVersionOf(json: ModelJson): string {
  const versions = (json.modelTopology as { versions?: { producer?: unknown; minConsumer?: unknown } } | undefined)?.versions;
  return `${String(versions?.producer)}.${String(versions?.minConsumer)}`;
}
