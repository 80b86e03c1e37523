import type { Feed, InferenceSession, RuntimeValue, TensorMetadata } from '@tsge/ge';
import { TsgeError } from '@tsge/ge';
import * as tf from '@tensorflow/tfjs-core';
import type { ModelJson } from './model-source.js';
import { shapeFits, tfDtypeOf, toFeed, toFeedSync, toTfTensor } from './tensors.js';

/** What execute/predict take, as TensorFlow.js's models do. */
export type ModelInputs = tf.Tensor | tf.Tensor[] | tf.NamedTensorMap;

/** How a model's inputs are checked: graph models as tfjs's GraphModel, layers models as its LayersModel. */
export interface InputPolicy {
  /** Numeric tensors of another dtype are cast (tfjs's layers do not check input dtypes). */
  readonly castNumeric: boolean;
  /** The message for a shape that does not fit, in the words tfjs uses for this kind of model. */
  readonly shapeProblem: (name: string, expected: string, got: readonly number[]) => string;
}

/** Opens the model again with these graph outputs (`node:index`): how intermediate nodes are fetched. */
export type OpenWithOutputs = (outNodes: readonly string[]) => Promise<InferenceSession>;

/**
 * Which session computes the outputs a call asks for: the loaded model for its outputs, or a
 * model compiled with the requested nodes as its outputs (intermediate nodes, as tfjs's
 * `execute(inputs, ['some/node'])`).
 */
export type OutputRequest =
  | { readonly kind: 'model'; readonly fetches: readonly string[] }
  | { readonly kind: 'nodes'; readonly nodes: readonly string[]; readonly order: readonly number[]; readonly names: readonly string[] };

export interface ModelCoreOptions {
  /** Graph models: how intermediate nodes are fetched (layers models have none). */
  readonly openWithOutputs?: OpenWithOutputs;
  /** tfjs's names of the inputs and outputs, in the session's order, where they differ from the parser's (layers models). */
  readonly tfNames?: { readonly inputs?: readonly string[]; readonly outputs?: readonly string[] };
}

/** tfjs's names as a signature-like map (name → session tensor), when there is one per session name. */
function byPosition(names: readonly string[] | undefined, sessionNames: readonly string[]): Record<string, { name: string }> | undefined {
  if (names?.length !== sessionNames.length || new Set(names).size !== names.length) return undefined;
  return Object.fromEntries(names.map((name, i) => [name, { name: sessionNames[i] as string }]));
}

/** Compiled output sets kept per model; the oldest is released beyond this. */
const MAX_OUTPUT_SETS = 8;

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
  /** Graph node names intermediate outputs may name (graph models; empty for layers models). */
  readonly #graphNodes: ReadonlySet<string>;
  readonly #openWithOutputs: OpenWithOutputs | undefined;
  /** Sessions compiled for sets of intermediate outputs, by the set; `session` once compiled. */
  readonly #outputSets = new Map<string, { readonly opened: Promise<InferenceSession>; session?: InferenceSession }>();
  #disposed = false;
  #released: Promise<void> | undefined;

  constructor(session: InferenceSession, json: ModelJson, policy: InputPolicy, options: ModelCoreOptions = {}) {
    this.#session = session;
    this.json = json;
    this.#policy = policy;
    const openWithOutputs = options.openWithOutputs;
    this.#openWithOutputs = openWithOutputs;
    const signature = json.userDefinedMetadata?.signature ?? json.signature;
    const { tfNames } = options;
    this.inputNodes = this.#alias(
      session.inputNames,
      byPosition(tfNames?.inputs, session.inputNames) ?? signature?.inputs,
      this.#inputAliases,
    );
    this.outputNodes = this.#alias(
      session.outputNames,
      byPosition(tfNames?.outputs, session.outputNames) ?? signature?.outputs,
      this.#outputAliases,
    );
    const nodes = (json.modelTopology as { node?: readonly { name?: unknown }[] } | undefined)?.node;
    this.#graphNodes = new Set(
      openWithOutputs && Array.isArray(nodes) ? nodes.flatMap((n) => (typeof n?.name === 'string' ? [n.name] : [])) : [],
    );
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

  /**
   * What computes tfjs's `outputs` argument (a name, a list, or the default outputs): the model's
   * outputs, or graph nodes (`node` or `node:index`) the model is compiled again for.
   */
  resolveOutputs(outputs: string | readonly string[] | undefined): OutputRequest {
    const requested = outputs === undefined ? this.outputNodes : typeof outputs === 'string' ? [outputs] : outputs;
    const fetches: (string | undefined)[] = requested.map((name) => (typeof name === 'string' ? this.#outputAliases.get(name) : undefined));
    if (fetches.every((f) => f !== undefined)) return { kind: 'model', fetches };
    const nodes: string[] = [];
    const order = requested.map((name, i) => {
      const node = fetches[i] ?? name;
      // tfjs's spelling `node:index`; a bare name is output 0
      const match = typeof node === 'string' ? /^(.*?)(?::(\d+))?$/.exec(node) : null;
      const base = match?.[1] ?? '';
      if (!match || !(this.#graphNodes.has(base) || fetches[i] !== undefined)) {
        throw TsgeError.of('TSGE-E8308', { output: String(name), outputs: this.outputNodes.join(', ') });
      }
      const entry = `${base}:${match[2] ?? '0'}`;
      const at = nodes.indexOf(entry);
      if (at >= 0) return at;
      nodes.push(entry);
      return nodes.length - 1;
    });
    return { kind: 'nodes', nodes, order, names: requested.map(String) };
  }

  /** Runs the session on tfjs inputs and returns the requested outputs as tf.Tensors, in order. */
  async run(inputs: ModelInputs, request: OutputRequest): Promise<tf.Tensor[]> {
    if (this.#disposed) throw TsgeError.of('TSGE-E8311');
    const byName = this.#normalize(inputs, request);
    const session = request.kind === 'model' ? this.#session : await this.#outputSet(request.nodes);
    const feeds: Record<string, Feed> = {};
    for (const meta of session.inputMetadata) {
      const tensor = byName.get(meta.name) as tf.Tensor;
      feeds[meta.name] = await toFeed(meta.name, tensor, meta.dtype, this.#policy.castNumeric);
    }
    return this.#outputs(request, session, await session.run(feeds, this.#fetches(request, session)));
  }

  /**
   * `run` done synchronously (tfjs's execute/predict): `InferenceSession.runSync`, the whole run
   * on the calling thread without workers. Intermediate outputs need their compiled model, which
   * only the asynchronous forms can build: without it this is TSGE-E8313.
   */
  runSync(inputs: ModelInputs, request: OutputRequest): tf.Tensor[] {
    if (this.#disposed) throw TsgeError.of('TSGE-E8311');
    const byName = this.#normalize(inputs, request);
    const session = request.kind === 'model' ? this.#session : this.#outputSets.get(request.nodes.join('\n'))?.session;
    if (session === undefined) throw TsgeError.of('TSGE-E8313', { outputs: request.kind === 'nodes' ? request.names.join(', ') : '' });
    const feeds: Record<string, Feed> = {};
    for (const meta of session.inputMetadata) {
      const tensor = byName.get(meta.name) as tf.Tensor;
      feeds[meta.name] = toFeedSync(meta.name, tensor, meta.dtype, this.#policy.castNumeric);
    }
    return this.#outputs(request, session, session.runSync(feeds, this.#fetches(request, session)));
  }

  #fetches(request: OutputRequest, session: InferenceSession): string[] {
    return request.kind === 'model' ? [...new Set(request.fetches)] : [...session.outputNames];
  }

  #outputs(request: OutputRequest, session: InferenceSession, results: Record<string, RuntimeValue>): tf.Tensor[] {
    if (request.kind === 'model') return request.fetches.map((name) => toTfTensor(name, results[name]));
    return request.order.map((index, i) => toTfTensor(request.names[i] as string, results[session.outputNames[index] as string]));
  }

  /** The model compiled with `nodes` as its outputs, compiled once per set (the last few sets are kept). */
  #outputSet(nodes: readonly string[]): Promise<InferenceSession> {
    const key = nodes.join('\n');
    const known = this.#outputSets.get(key);
    if (known) return known.opened;
    const open = this.#openWithOutputs;
    if (!open) throw TsgeError.of('TSGE-E8308', { output: nodes.join(', '), outputs: this.outputNodes.join(', ') });
    const entry: { opened: Promise<InferenceSession>; session?: InferenceSession } = {
      opened: open(nodes).then((session) => {
        if (this.#disposed) {
          session.release().catch(() => undefined);
          throw TsgeError.of('TSGE-E8311');
        }
        entry.session = session;
        return session;
      }),
    };
    // a set that fails to compile is not kept: the next call reports the error again
    entry.opened.catch(() => {
      if (this.#outputSets.get(key) === entry) this.#outputSets.delete(key);
    });
    this.#outputSets.set(key, entry);
    if (this.#outputSets.size > MAX_OUTPUT_SETS) {
      // the oldest compiled set goes (sets still compiling are awaited by their callers)
      const oldest = [...this.#outputSets].find(([, set]) => set.session !== undefined);
      if (oldest) {
        this.#outputSets.delete(oldest[0]);
        oldest[1].session?.release().catch(() => undefined);
      }
    }
    return entry.opened;
  }

  /** tfjs's three input forms as session input name → tensor, checked as tfjs checks them. */
  #normalize(inputs: ModelInputs, request: OutputRequest): Map<string, tf.Tensor> {
    const outputs = request.kind === 'model' ? request.fetches : request.names;
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

  /** Frees the sessions (device memory, workers); later runs are TSGE-E8311. */
  release(): Promise<void> {
    this.#disposed = true;
    const sets = [...this.#outputSets.values()];
    this.#outputSets.clear();
    this.#released ??= Promise.all([
      this.#session.release(),
      // a set still compiling releases itself when it is done (it sees the model disposed)
      ...sets.map((set) => set.session?.release()),
    ]).then(() => undefined);
    return this.#released;
  }
}

/** tfjs's modelVersion: the GraphDef's producer and min consumer versions. */
export function modelVersionOf(json: ModelJson): string {
  const versions = (json.modelTopology as { versions?: { producer?: unknown; minConsumer?: unknown } } | undefined)?.versions;
  return `${String(versions?.producer)}.${String(versions?.minConsumer)}`;
}
