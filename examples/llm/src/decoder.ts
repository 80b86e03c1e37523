// A compiled decoder and its KV cache. By default the cache lives in device tensors of
// maxLength rows bound as both past and present (onnxruntime-genai's past_present_share_buffer):
// a step writes only the new tokens' keys/values and copies nothing. With `shareBuffer: false`
// each step's present key/values (a new array) are fed back as the next past.
import { type DeviceTensor, type LoadModelOptions, compileModel, loadModel } from '@tsge/ge';
import { type HostTensor, TsgeError } from '@tsge/metadef';
import type { Checkpoint } from './checkpoint.js';
import { buildDecoderGraph, pastKey, pastValue, presentKey, presentValue } from './decoder-graph.js';

type Executor = Awaited<ReturnType<typeof loadModel>>;

export interface DecoderOptions {
  /** Longest prompt + generation (the rotary cache's length). */
  readonly maxLength: number;
  /** 4-bit MatMulNBits projections (see DecoderGraphOptions.int4). */
  readonly int4?: boolean;
  readonly threads?: number;
  /** One cache buffer per layer shared by past and present (default true). */
  readonly shareBuffer?: boolean;
  /** More executor options (a device, say); `threads` above wins. */
  readonly load?: LoadModelOptions;
}

export class Decoder {
  private past = new Map<string, HostTensor>();
  /** The shared cache buffers by past input name (empty without shareBuffer). */
  private readonly cache = new Map<string, DeviceTensor>();
  private length = 0;

  private constructor(
    private readonly checkpoint: Checkpoint,
    private readonly model: Executor,
    readonly maxLength: number,
    shareBuffer: boolean,
  ) {
    if (shareBuffer) {
      const { layers, kvHeads, headDim } = checkpoint.config;
      for (let i = 0; i < layers; i++)
        for (const name of [pastKey(i), pastValue(i)])
          this.cache.set(name, model.createDeviceTensor('float32', [1, kvHeads, maxLength, headDim]));
    }
    this.reset();
  }

  static async create(checkpoint: Checkpoint, options: DecoderOptions): Promise<Decoder> {
    if (!Number.isSafeInteger(options.maxLength) || options.maxLength <= 0)
      throw TsgeError.of('TSGE-E4152', { option: 'maxLength', reason: `must be a positive integer, got ${options.maxLength}` });
    const graph = buildDecoderGraph(checkpoint.config, checkpoint.weights, checkpoint.dir, {
      maxLength: options.maxLength,
      int4: options.int4 === true,
    });
    const { om } = await compileModel(graph);
    const model = await loadModel(om, { ...options.load, ...(options.threads !== undefined ? { threads: options.threads } : {}) });
    try {
      // a generation runs many steps: wait for the worker threads rather than start on this one
      await model.whenReady();
      return new Decoder(checkpoint, model, options.maxLength, options.shareBuffer !== false);
    } catch (error) {
      await model.release();
      throw error;
    }
  }

  /** Tokens in the cache. */
  get position(): number {
    return this.length;
  }

  /** Empties the KV cache (a shared one is overwritten from row 0 by the next prompt). */
  reset(): void {
    const { layers, kvHeads, headDim } = this.checkpoint.config;
    const empty = (): HostTensor => ({ type: 'float32', dims: [1, kvHeads, 0, headDim], data: new Float32Array(0) });
    this.length = 0;
    for (let i = 0; i < layers; i++) {
      this.past.set(pastKey(i), empty());
      this.past.set(pastValue(i), empty());
    }
  }

  /** Runs `tokens` after those in the cache; returns the logits of the last one. */
  async step(tokens: readonly number[]): Promise<Float32Array> {
    const total = this.length + tokens.length;
    if (tokens.length === 0 || total > this.maxLength)
      throw TsgeError.of('TSGE-E4152', {
        option: 'maxLength',
        reason: `${total} tokens do not fit the ${this.maxLength} the decoder was built for`,
      });
    const feeds: Record<string, HostTensor> = {
      input_ids: { type: 'int64', dims: [1, tokens.length], data: BigInt64Array.from(tokens, BigInt) },
      seqlens_k: { type: 'int32', dims: [1], data: Int32Array.of(total - 1) },
      total_sequence_length: { type: 'int32', dims: [], data: Int32Array.of(total) },
      ...Object.fromEntries(this.cache.size > 0 ? this.cache : this.past),
    };
    if (this.cache.size > 0) {
      // the present outputs are the past buffers: GroupQueryAttention writes the new rows in place
      const outputs: Record<string, DeviceTensor> = {};
      for (let i = 0; i < this.checkpoint.config.layers; i++) {
        outputs[presentKey(i)] = this.cache.get(pastKey(i)) as DeviceTensor;
        outputs[presentValue(i)] = this.cache.get(pastValue(i)) as DeviceTensor;
      }
      const out = await this.model.run(feeds, { outputs });
      this.length = total;
      return (out.logits as HostTensor).data as Float32Array;
    }
    const out = await this.model.run(feeds);
    for (let i = 0; i < this.checkpoint.config.layers; i++) {
      this.past.set(pastKey(i), out[presentKey(i)] as HostTensor);
      this.past.set(pastValue(i), out[presentValue(i)] as HostTensor);
    }
    this.length = total;
    return (out.logits as HostTensor).data as Float32Array;
  }

  /** The executor's per-task timings (a Chrome trace); needs `load: { profile: true }`. */
  profile(): ReturnType<Executor['profile']> {
    return this.model.profile();
  }

  async release(): Promise<void> {
    await this.model.release();
  }
}
