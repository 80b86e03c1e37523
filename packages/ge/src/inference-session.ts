import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import type {
  ChromeTrace,
  DeviceTensor,
  Executor,
  Feed,
  LoadModelOptions,
  RunOptions,
  RunSyncOptions,
  TensorMetadata,
} from '@tsge/executor';
import type { DataType, Dim, Graph, RuntimeValue } from '@tsge/metadef';
import { TsgeError } from '@tsge/metadef';
import { OM_FORMAT_VERSION, OM_MAGIC } from '@tsge/om';
import { type CompileCacheOptions, cacheKey, openCompileCache, sha256 } from './compile-cache.js';
import { type BuildOptions, compileModel, loadModel } from './model.js';
import { modelFileOf } from './model-path.js';
import { parseModelReading } from './parsers.js';

export interface InferenceSessionOptions {
  /** Parser name ('onnx', ...) or GE framework number; sniffed from the bytes when omitted. */
  readonly format?: string | number;
  /** Model file name for diagnostics when the model is given as bytes. */
  readonly fileName?: string;
  /** TensorFlow SavedModel (a directory): the signature to import (default `serving_default`). */
  readonly signature?: string;
  /** Input name → shape, replacing the model's (`atc --input_shape`). */
  readonly inputShapes?: Readonly<Record<string, readonly Dim[]>>;
  /**
   * Symbolic dimension name → size, applied to every input that has that dimension (onnxruntime's
   * `freeDimensionOverrides`). Names no input has are ignored, as onnxruntime ignores them.
   */
  readonly freeDimensions?: Readonly<Record<string, number>>;
  /** Compiler options (opt level, streams, custom passes, ...), for model files that are compiled. */
  readonly compile?: BuildOptions;
  /** Executor options: threads, profiling, memory limit, ... */
  readonly load?: LoadModelOptions;
  /** Keep compiled `.om` files on disk, keyed by the model's hash and these options (opt-in). */
  readonly cache?: CompileCacheOptions;
  /**
   * Side files of a model given as bytes (TensorFlow.js weight shards, ONNX external data), by the
   * relative path the model names them with. A model given by path reads them from its folder;
   * giving both is TSGE-E6151.
   */
  readonly sideFiles?: Readonly<Record<string, Uint8Array>>;
}

/** Where a session's `.om` came from. */
export type SessionOrigin = 'om' | 'compiled' | 'cache';

export type ModelSource = string | Uint8Array | ArrayBuffer;

const require = createRequire(import.meta.url);
// The cache key names the packages that decide what an `.om` holds, so an upgrade misses.
const COMPILER_VERSION = ['@tsge/compiler', '@tsge/ops', '@tsge/om']
  .map((name) => `${name}@${(require(`${name}/package.json`) as { version: string }).version}`)
  .concat(`om-format@${OM_FORMAT_VERSION}`)
  .join(' ');

/**
 * The front door: one object that takes an `.om` or any model file an installed parser reads,
 * compiles it in process when needed, and runs it on the executor.
 */
export class InferenceSession {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  readonly inputMetadata: readonly TensorMetadata[];
  readonly outputMetadata: readonly TensorMetadata[];
  readonly origin: SessionOrigin;
  readonly #executor: Executor;
  #released = false;

  private constructor(executor: Executor, origin: SessionOrigin) {
    this.#executor = executor;
    this.origin = origin;
    this.inputNames = executor.inputNames;
    this.outputNames = executor.outputNames;
    this.inputMetadata = executor.inputMetadata;
    this.outputMetadata = executor.outputMetadata;
  }

  /** Opens a model: a path or the bytes of an `.om` or of a model file (ONNX, GE `.air`, ...). */
  static async create(source: ModelSource, options: InferenceSessionOptions = {}): Promise<InferenceSession> {
    // a directory is a TensorFlow SavedModel: its saved_model.pb, with variables/ beside it
    if (typeof source === 'string') source = await modelFileOf(source);
    const filePath = typeof source === 'string' ? source : options.fileName;
    const bytes = await readSource(source);
    if (isOm(bytes)) {
      for (const option of ['format', 'signature', 'inputShapes', 'freeDimensions', 'compile', 'cache', 'sideFiles'] as const) {
        if (options[option] !== undefined) {
          throw TsgeError.of(
            'TSGE-E6151',
            { option, reason: 'applies to model files that are compiled; this is an .om' },
            fileLocation(filePath),
          );
        }
      }
      return new InferenceSession(await loadModel(bytes, options.load ?? {}), 'om');
    }
    const cache = options.cache ? openCompileCache(options.cache) : undefined;
    const key = cache ? cacheKey(COMPILER_VERSION, bytes, cacheableOptions(options)) : '';
    const modelDirectory = typeof source === 'string' ? path.dirname(path.resolve(source)) : undefined;
    if (cache) {
      const cached = await cache.get(key, modelDirectory);
      if (cached) {
        try {
          return new InferenceSession(await loadModel(cached, options.load ?? {}), 'cache');
        } catch (error) {
          // a damaged entry (checksum, truncation): drop it and compile afresh
          if (!TsgeError.isInstance(error) || !error.code.startsWith('TSGE-E2')) throw error;
          await cache.delete(key);
        }
      }
    }
    const parsed = await parseModelReading(typeof source === 'string' ? source : bytes, {
      ...(options.format !== undefined ? { format: options.format } : {}),
      ...(filePath !== undefined ? { fileName: filePath } : {}),
      ...(options.sideFiles !== undefined ? { sideFiles: options.sideFiles } : {}),
      ...(options.signature !== undefined ? { parserOptions: { signature: options.signature } } : {}),
      ...(options.compile?.outNodes?.length ? { buildOutNodes: options.compile.outNodes } : {}),
    });
    if (options.signature !== undefined && parsed.parser !== 'tensorflow')
      throw TsgeError.of('TSGE-E6151', {
        option: 'signature',
        reason: `applies to TensorFlow SavedModels; this model is ${parsed.parser}`,
      });
    const inputShapes = resolveInputShapes(parsed.graph, options);
    // TensorFlow parsers pick the outputs by TF tensor names (as atc does); the compiler has the rest
    const { outNodes, ...compile } = options.compile ?? {};
    const threads = options.load?.threads;
    const compiled = await compileModel(parsed.graph, {
      // kernel plans split work for the threads this session loads with
      ...(threads !== undefined ? { threads } : {}),
      ...compile,
      ...(outNodes && !parsed.outNodesApplied ? { outNodes } : {}),
      ...(inputShapes ? { inputShapes } : {}),
    });
    // side files given in memory are in the key already; those read from the folder are checked on a hit
    if (cache)
      await cache.put(
        key,
        compiled.om,
        (options.sideFiles !== undefined ? [] : parsed.sideFiles).map((side) => ({
          path: side.path,
          sha256: sha256(side.bytes),
          ...(side.offset !== undefined ? { offset: side.offset, length: side.length ?? side.bytes.length } : {}),
        })),
      );
    return new InferenceSession(await loadModel(compiled.om, options.load ?? {}), 'compiled');
  }

  get modelName(): string {
    return this.#executor.modelName;
  }

  /**
   * Runs the model. `fetches` selects outputs by name (default: all); every output is still
   * computed, since the `.om`'s plan is fixed at compile time (`compile.outNodes` prunes for real).
   */
  async run(
    feeds: Readonly<Record<string, Feed>>,
    fetches?: readonly string[],
    options?: RunOptions,
  ): Promise<Record<string, RuntimeValue>> {
    this.#checkRun(fetches);
    return this.#select(await this.#executor.run(feeds, options), fetches);
  }

  /**
   * `run` done synchronously: the whole run on the calling thread, without worker threads, while
   * the event loop waits (see `Executor.runSync`). For synchronous APIs such as TensorFlow.js's
   * `predict`; `run` uses every core. Opening the session stays asynchronous.
   */
  runSync(feeds: Readonly<Record<string, Feed>>, fetches?: readonly string[], options?: RunSyncOptions): Record<string, RuntimeValue> {
    this.#checkRun(fetches);
    return this.#select(this.#executor.runSync(feeds, options), fetches);
  }

  #checkRun(fetches: readonly string[] | undefined): void {
    if (this.#released) throw TsgeError.of('TSGE-E6153');
    for (const name of fetches ?? []) {
      if (!this.outputNames.includes(name)) {
        throw TsgeError.of('TSGE-E6150', { output: JSON.stringify(name), expected: this.outputNames.join(', ') });
      }
    }
  }

  #select(outputs: Record<string, RuntimeValue>, fetches: readonly string[] | undefined): Record<string, RuntimeValue> {
    if (fetches === undefined) return outputs;
    const selected: Record<string, RuntimeValue> = {};
    for (const name of fetches) selected[name] = outputs[name] as RuntimeValue;
    return selected;
  }

  /**
   * A tensor kept in the session's device memory (see `Executor.createDeviceTensor`): fed without
   * a copy, and written in place when bound to an output with `run(feeds, fetches, { outputs })`,
   * as onnxruntime's IO binding (a KV cache whose present shares the past's buffer).
   */
  createDeviceTensor(dtype: DataType, dims: readonly number[]): DeviceTensor {
    if (this.#released) throw TsgeError.of('TSGE-E6153');
    return this.#executor.createDeviceTensor(dtype, dims);
  }

  releaseDeviceTensor(tensor: DeviceTensor): void {
    if (!this.#released) this.#executor.releaseDeviceTensor(tensor);
  }

  /** Per-kernel timings of the runs so far as a Chrome trace (needs `load: { profile: true }`). */
  profile(): ChromeTrace {
    return this.#executor.profile();
  }

  /** Frees device memory and stops the workers; later runs fail with TSGE-E6153. Idempotent. */
  async release(): Promise<void> {
    if (this.#released) return;
    this.#released = true;
    await this.#executor.release();
  }
}

async function readSource(source: ModelSource): Promise<Uint8Array> {
  if (typeof source === 'string') {
    try {
      return new Uint8Array(await readFile(source));
    } catch (error) {
      const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : String(error);
      throw TsgeError.of('TSGE-E3001', { reason }, { file: source }, error);
    }
  }
  if (source instanceof Uint8Array) return source;
  if (source instanceof ArrayBuffer) return new Uint8Array(source);
  throw TsgeError.of('TSGE-E6151', { option: 'source', reason: 'must be a file path, a Uint8Array or an ArrayBuffer' });
}

function isOm(bytes: Uint8Array): boolean {
  if (bytes.byteLength < OM_MAGIC.length) return false;
  for (let i = 0; i < OM_MAGIC.length; i++) if (bytes[i] !== OM_MAGIC.charCodeAt(i)) return false;
  return true;
}

function fileLocation(filePath: string | undefined): { file: string } | undefined {
  return filePath === undefined ? undefined : { file: filePath };
}

/** The options that decide the compiled `.om`; function-valued ones cannot be keyed. */
function cacheableOptions(options: InferenceSessionOptions): unknown {
  const { customPasses, customFusions, onProgress: _progress, dumpGraphAfter, dumpDir: _dumpDir, ...compile } = options.compile ?? {};
  if ((customPasses?.length ?? 0) > 0 || (customFusions?.length ?? 0) > 0) {
    throw TsgeError.of('TSGE-E6151', { option: 'cache', reason: 'custom passes and fusions are code, which the cache key cannot cover' });
  }
  if (dumpGraphAfter !== undefined) {
    throw TsgeError.of('TSGE-E6151', { option: 'cache', reason: 'compile.dumpGraphAfter dumps while compiling, which a cache hit skips' });
  }
  const sideFiles =
    options.sideFiles && Object.fromEntries(Object.entries(options.sideFiles).map(([name, bytes]) => [name, sha256(bytes)]));
  return {
    format: options.format,
    signature: options.signature,
    inputShapes: options.inputShapes,
    freeDimensions: options.freeDimensions,
    compile,
    sideFiles,
  };
}

/** `inputShapes` merged with the inputs whose symbolic dims `freeDimensions` fixes. */
function resolveInputShapes(graph: Graph, options: InferenceSessionOptions): Record<string, Dim[]> | undefined {
  const shapes: Record<string, Dim[]> = {};
  for (const [name, shape] of Object.entries(options.compile?.inputShapes ?? {})) shapes[name] = [...shape];
  for (const [name, shape] of Object.entries(options.inputShapes ?? {})) shapes[name] = [...shape];
  const free = options.freeDimensions ?? {};
  for (const [dim, size] of Object.entries(free)) {
    if (!Number.isSafeInteger(size) || size < 1) {
      throw TsgeError.of('TSGE-E6151', { option: `freeDimensions.${dim}`, reason: `must be a positive integer, got ${String(size)}` });
    }
  }
  if (Object.keys(free).length > 0) {
    for (const input of graph.inputNodes()) {
      const name = input.name;
      if (shapes[name]) continue;
      const shape = input.opDesc.outputDescs[0]?.shape;
      if (!shape?.some((d) => typeof d === 'string' && d in free)) continue;
      shapes[name] = shape.map((d) => (typeof d === 'string' && d in free ? (free[d] as number) : d));
    }
  }
  return Object.keys(shapes).length > 0 ? shapes : undefined;
}
