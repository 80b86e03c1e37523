// Text generation: the checkpoint's own tokenizer.json (through @huggingface/tokenizers), a prefill
// of the prompt, then one decode step per new token, each piece of text handed on as it is decoded.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Tokenizer } from '@huggingface/tokenizers';
import { TsgeError } from '@tsge/metadef';
import { readCheckpoint, readOrFail } from './checkpoint.js';
import { Decoder } from './decoder.js';
import { type SamplingOptions, sampler } from './sample.js';

export interface GenerateOptions extends SamplingOptions {
  readonly maxNewTokens: number;
  /** Wrap the prompt in the ChatML turn Qwen's instruct models expect (when the tokenizer has its tokens). */
  readonly chat: boolean;
  /** Quantize the projections and lm_head to 4-bit MatMulNBits weights when building the graph. */
  readonly int4?: boolean;
  readonly threads?: number;
}

export interface GenerateStats {
  readonly promptTokens: number;
  readonly newTokens: number;
  readonly compileMs: number;
  readonly prefillMs: number;
  /** Decode steps per second (the prefill's token excluded). */
  readonly tokensPerSecond: number;
}

async function readJson(file: string, required: boolean): Promise<unknown> {
  if (!required && !existsSync(file)) return {};
  const text = await readOrFail(file, () => readFile(file, 'utf8'));
  try {
    return JSON.parse(text);
  } catch (error) {
    throw TsgeError.of('TSGE-E4150', { file, reason: `not JSON (${error instanceof Error ? error.message : String(error)})` });
  }
}

async function readTokenizer(dir: string): Promise<Tokenizer> {
  const file = path.join(dir, 'tokenizer.json');
  const json = await readJson(file, true);
  const config = await readJson(path.join(dir, 'tokenizer_config.json'), false);
  try {
    return new Tokenizer(json as object, config as object);
  } catch (error) {
    throw TsgeError.of('TSGE-E4150', {
      file,
      reason: `not a tokenizer @huggingface/tokenizers reads (${error instanceof Error ? error.message : String(error)})`,
    });
  }
}

const chatml = (prompt: string) =>
  `<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n<|im_start|>user\n${prompt}<|im_end|>\n<|im_start|>assistant\n`;

export async function generate(
  dir: string,
  prompt: string,
  options: GenerateOptions,
  write: (text: string) => void,
): Promise<GenerateStats> {
  const started = performance.now();
  const checkpoint = await readCheckpoint(dir);
  const tokenizer = await readTokenizer(dir);
  const generation = (await readJson(path.join(dir, 'generation_config.json'), false)) as Record<string, unknown>;
  const stops = new Set(checkpoint.config.eosTokenIds);
  const genEos = Object.hasOwn(generation, 'eos_token_id') ? generation.eos_token_id : undefined;
  for (const id of Array.isArray(genEos) ? genEos : [genEos]) if (Number.isSafeInteger(id)) stops.add(id as number);
  for (const t of ['<|im_end|>', '<|endoftext|>']) {
    const id = tokenizer.token_to_id(t);
    if (id !== undefined) stops.add(id);
  }
  const useChat = options.chat && tokenizer.token_to_id('<|im_start|>') !== undefined;
  const ids = tokenizer.encode(useChat ? chatml(prompt) : prompt, { add_special_tokens: !useChat }).ids;
  if (ids.length === 0) throw TsgeError.of('TSGE-E4152', { option: '--prompt', reason: 'encodes to no tokens' });
  const maxLength = Math.min(checkpoint.config.maxPositions, ids.length + options.maxNewTokens);
  if (ids.length >= maxLength)
    throw TsgeError.of('TSGE-E4152', {
      option: '--prompt',
      reason: `${ids.length} tokens leave no room under max_position_embeddings ${checkpoint.config.maxPositions}`,
    });
  const decoder = await Decoder.create(checkpoint, {
    maxLength,
    int4: options.int4 === true,
    ...(options.threads !== undefined ? { threads: options.threads } : {}),
  });
  const compileMs = performance.now() - started;
  const pick = sampler(options);
  const generated: number[] = [];
  let printed = '';
  try {
    const t0 = performance.now();
    let next = pick(await decoder.step(ids));
    const prefillMs = performance.now() - t0;
    const t1 = performance.now();
    while (!stops.has(next)) {
      generated.push(next);
      const text = tokenizer.decode(generated, { skip_special_tokens: true });
      // a token may end inside a multi-byte character: wait for the rest
      if (!text.endsWith('\uFFFD') && text.startsWith(printed)) {
        write(text.slice(printed.length));
        printed = text;
      }
      if (generated.length >= options.maxNewTokens || decoder.position >= maxLength) break;
      next = pick(await decoder.step([next]));
    }
    const decodeMs = performance.now() - t1;
    const steps = Math.max(0, decoder.position - ids.length);
    return {
      promptTokens: ids.length,
      newTokens: generated.length,
      compileMs,
      prefillMs,
      tokensPerSecond: steps > 0 ? (steps * 1000) / decodeMs : 0,
    };
  } finally {
    await decoder.release();
  }
}
