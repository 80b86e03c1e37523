// Child process of `pnpm bench:llm` holding one runtime's decoder (llm-decoder.ts): each runtime in
// its own process, so onnxruntime-web's thread pool and heap, the other runtimes' garbage and V8's
// background compilation never share a process with the runtime being timed.
import { readFile } from 'node:fs/promises';
import {
  type DecodeResult,
  type LlmFormat,
  type LlmRuntime,
  type LlmSession,
  type LlmShape,
  decoderConfig,
  ortSession,
  randomWeights,
  tsgeSession,
} from './llm-decoder.js';
import { untilQuiet } from './quiet.js';
import { loadOrtNode, loadOrtWeb, preloadRuntime } from './runtimes.js';

export type LlmChildRequest =
  | {
      readonly kind: 'load';
      readonly runtime: LlmRuntime;
      readonly format: LlmFormat;
      readonly shape: LlmShape;
      /** The decoder written as ONNX (onnxruntime only). */
      readonly onnx?: string;
      /** tsge: print the executor's per-op profile of each round's decode steps. */
      readonly profile: boolean;
    }
  | { readonly kind: 'round' }
  | { readonly kind: 'exit' };

export type LlmChildReply =
  | { readonly kind: 'loaded'; readonly loadMs: number }
  | { readonly kind: 'round'; readonly result: DecodeResult; readonly profile?: string[] }
  | { readonly kind: 'error'; readonly message: string };

let session: (LlmSession & { profileLines?: (format: string) => string[] }) | undefined;
let format: LlmFormat = 'fp32';

async function open(req: Extract<LlmChildRequest, { kind: 'load' }>): Promise<typeof session> {
  await preloadRuntime(req.runtime);
  if (req.runtime === 'tsge')
    return tsgeSession(req.shape, randomWeights(decoderConfig(req.shape.layers)), req.format === 'int4', req.profile);
  if (!req.onnx) throw new Error(`bench:llm ${req.runtime} child: no ONNX file`);
  const model =
    req.runtime === 'ort-node'
      ? await loadOrtNode(req.onnx, req.shape.threads)
      : await loadOrtWeb(new Uint8Array(await readFile(req.onnx)), req.shape.threads);
  return ortSession(req.shape, model);
}

async function handle(req: LlmChildRequest): Promise<LlmChildReply | undefined> {
  if (req.kind === 'load') {
    const start = performance.now();
    session = await open(req);
    format = req.format;
    const loadMs = performance.now() - start;
    await untilQuiet();
    return { kind: 'loaded', loadMs };
  }
  if (!session) throw new Error('bench:llm child: no decoder loaded');
  if (req.kind === 'round') {
    const result = await session.round();
    const profile = session.profileLines?.(format);
    return { kind: 'round', result, ...(profile ? { profile } : {}) };
  }
  await session.release();
  process.disconnect();
  return undefined;
}

process.on('message', (req: LlmChildRequest) => {
  handle(req).then(
    (reply) => reply && process.send?.(reply),
    (e: unknown) => process.send?.({ kind: 'error', message: e instanceof Error ? e.message : String(e) } satisfies LlmChildReply),
  );
});
