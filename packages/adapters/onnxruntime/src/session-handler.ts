import { writeFileSync } from 'node:fs';
import type {
  InferenceSession as OrtSession,
  InferenceSessionHandler,
  OnnxValue,
  SessionHandler,
  Tensor as OrtTensor,
} from 'onnxruntime-common';
import { Tensor } from 'onnxruntime-common';
import { type Feed, InferenceSession, type TraceEvent, TsgeError } from '@tsge/ge';
import { type TsgeSessionOptions, mapSessionOptions } from './session-options.js';
import { DROP_IN_SESSION, placeholderFor } from './drop-in-values.js';
import { dimsProblem, fillPreallocated, onnxTypeName, toFeed, toOrtValue, toValueMetadata } from './tensors.js';

/** Opens a model for onnxruntime-common: a path or bytes of an ONNX file (or a tsge `.om`). */
export async function createSessionHandler(
  source: string | Uint8Array,
  options: TsgeSessionOptions = {},
): Promise<InferenceSessionHandler> {
  const mapped = mapSessionOptions(options);
  let session: InferenceSession;
  try {
    session = await InferenceSession.create(source, mapped.session);
  } catch (error) {
    // onnxruntime's wording first ("Load model from ... failed"), tsge's code and reason after it
    if (!TsgeError.isInstance(error)) throw error;
    const what = typeof source === 'string' ? `from ${source}` : 'from buffer';
    throw new TsgeError(error.code, `Load model ${what} failed: ${error.message}`, { cause: error, diagnostics: error.diagnostics });
  }
  const extended = (options as { [DROP_IN_SESSION]?: unknown })[DROP_IN_SESSION] === true;
  return new TsgeSessionHandler(session, mapped.profiling, extended);
}

class TsgeSessionHandler implements InferenceSessionHandler {
  readonly inputNames: readonly string[];
  readonly outputNames: readonly string[];
  readonly inputMetadata: readonly OrtSession.ValueMetadata[];
  readonly outputMetadata: readonly OrtSession.ValueMetadata[];
  readonly #session: InferenceSession;
  readonly #profiling: { readonly enabled: boolean; readonly filePrefix: string };
  /** Trace events before this index belong to an earlier profiling window. */
  #profileStart = 0;
  #profilingActive: boolean;
  #disposed = false;

  /** Created by the drop-in: non-tensor results go out as placeholders the drop-in's run replaces. */
  readonly #extended: boolean;

  constructor(session: InferenceSession, profiling: { enabled: boolean; filePrefix: string }, extended: boolean) {
    this.#session = session;
    this.#extended = extended;
    this.#profiling = profiling;
    this.#profilingActive = profiling.enabled; // onnxruntime profiles from session creation
    this.inputNames = session.inputNames;
    this.outputNames = session.outputNames;
    this.inputMetadata = session.inputMetadata.map(toValueMetadata);
    this.outputMetadata = session.outputMetadata.map(toValueMetadata);
  }

  async run(
    feeds: SessionHandler.FeedsType,
    fetches: SessionHandler.FetchesType,
    options: OrtSession.RunOptions,
  ): Promise<SessionHandler.ReturnType> {
    if (this.#disposed) throw TsgeError.of('TSGE-E8207');
    checkRunOptions(options ?? {});
    // onnxruntime ignores feeds that are not model inputs; so does this adapter
    const inputs: Record<string, Feed> = {};
    for (const meta of this.#session.inputMetadata) {
      const value = feeds[meta.name];
      if (value !== undefined) inputs[meta.name] = toFeed(meta.name, value, meta);
    }
    const names = Object.keys(fetches);
    let outputs: Awaited<ReturnType<InferenceSession['run']>>;
    try {
      outputs = await this.#session.run(inputs, names);
    } catch (error) {
      throw this.#asOrtError(error, inputs);
    }
    const results: Record<string, OnnxValue> = {};
    for (const name of names) {
      const value = toOrtValue(name, outputs[name], this.#extended);
      const preallocated = fetches[name];
      if (value instanceof Tensor) results[name] = preallocated ? fillPreallocated(name, preallocated as OrtTensor, value) : value;
      else if (preallocated)
        throw TsgeError.of('TSGE-E8205', { output: name, reason: 'is not a tensor; only tensor outputs can be preallocated' });
      else results[name] = placeholderFor(value);
    }
    return results;
  }

  startProfiling(): void {
    // as in onnxruntime-node, profiling exists only for sessions created with enableProfiling
    if (!this.#profiling.enabled) return;
    this.#profileStart = this.#events().length;
    this.#profilingActive = true;
  }

  /** Writes the trace since profiling started to `<profileFilePrefix>_<date>.json`, as onnxruntime does. */
  endProfiling(): void {
    if (!this.#profiling.enabled || !this.#profilingActive) return;
    this.#profilingActive = false;
    const events = this.#events().slice(this.#profileStart);
    this.#profileStart += events.length;
    const file = `${this.#profiling.filePrefix}_${timestamp(new Date())}.json`;
    try {
      writeFileSync(file, `${JSON.stringify(events)}\n`);
    } catch (error) {
      throw TsgeError.of('TSGE-E8208', { reason: `cannot write ${file}: ${String(error)}` }, { file }, error);
    }
  }

  async dispose(): Promise<void> {
    if (this.#disposed) throw TsgeError.of('TSGE-E8207'); // as onnxruntime-node: a second release fails
    this.#disposed = true;
    await this.#session.release();
  }

  #events(): readonly TraceEvent[] {
    return this.#session.profile().traceEvents.filter((event): event is TraceEvent => event.ph === 'X');
  }

  /** tsge's feed errors in onnxruntime's words (what users grep for), keeping tsge's code as the cause. */
  #asOrtError(error: unknown, inputs: Readonly<Record<string, Feed>>): unknown {
    if (!TsgeError.isInstance(error)) return error;
    if (error.code === 'TSGE-E6006' || error.code === 'TSGE-E6153') return TsgeError.of('TSGE-E8207', {}, undefined, error);
    const input = error.diagnostics[0]?.location?.input;
    const meta = this.inputMetadata.find((m) => m.name === input);
    const feed = input === undefined ? undefined : (inputs[input] as { type?: string; dims?: readonly number[] } | undefined);
    if (!meta || !feed || !meta.isTensor) return error;
    let reason: string | undefined;
    if (error.code === 'TSGE-E6003' && feed.type !== meta.type) {
      reason = `Unexpected input data type. Actual: (${onnxTypeName(String(feed.type))}) , expected: (${onnxTypeName(meta.type)})`;
    } else if (error.code === 'TSGE-E6004' && feed.dims) {
      reason = dimsProblem('input', meta.name, feed.dims, meta.shape);
    }
    return reason ? TsgeError.of('TSGE-E8204', { input: meta.name, reason }, { input: meta.name }, error) : error;
  }
}

function checkRunOptions(options: OrtSession.RunOptions): void {
  if (options.terminate === true)
    throw TsgeError.of('TSGE-E8203', { option: 'terminate', reason: 'tsge cannot stop a run that has started' });
  if (options.logSeverityLevel !== undefined && ![0, 1, 2, 3, 4].includes(options.logSeverityLevel)) {
    throw TsgeError.of('TSGE-E8203', {
      option: 'logSeverityLevel',
      reason: `expected 0 (verbose) to 4 (fatal), got ${String(options.logSeverityLevel)}`,
    });
  }
  if (options.extra !== undefined && Object.keys(options.extra).length > 0) {
    throw TsgeError.of('TSGE-E8203', {
      option: 'extra',
      reason: `tsge has no run configuration entries (${Object.keys(options.extra).join(', ')})`,
    });
  }
}

/** onnxruntime's profile file suffix: local date and time, `2026-12-01_20-52-24_338`. */
function timestamp(date: Date): string {
  const two = (n: number): string => String(n).padStart(2, '0');
  const milliseconds = String(date.getMilliseconds()).padStart(3, '0');
  return `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}_${two(date.getHours())}-${two(date.getMinutes())}-${two(date.getSeconds())}_${milliseconds}`;
}
