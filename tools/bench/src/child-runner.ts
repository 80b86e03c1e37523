// Child process holding one runtime with one model, for `pnpm bench --rounds N`: each runtime gets its
// own process, so onnxruntime-web's thread pool, V8's tiering of each runtime's WebAssembly and the
// garbage of the others never share a heap, an event loop or background compiler threads.
import { readFile } from 'node:fs/promises';
import { initialize, loadModel } from '@tsge/ge';
import type { HostTensor } from '@tsge/metadef';
import { probeEventLoop } from './event-loop-probe.js';
import { warmUpShapes } from './feeds.js';
import { settle, timeIt, untilQuiet } from './quiet.js';
import { type LoadedRuntime, loadOrtNode, loadOrtWeb, preloadRuntime } from './runtimes.js';

export type RuntimeName = LoadedRuntime['name'];

export type ChildRequest =
  /** Import the runtime's modules (sent to every child before any is asked to load). */
  | { readonly kind: 'boot'; readonly runtime: RuntimeName; readonly threads: number }
  | {
      readonly kind: 'load';
      readonly runtime: RuntimeName;
      /** The ONNX file (onnxruntime) or the compiled .om (tsge). */
      readonly file: string;
      readonly threads: number;
      readonly feeds: Record<string, HostTensor>;
    }
  | { readonly kind: 'round'; readonly runs: number; readonly gapMs: number }
  | { readonly kind: 'outputs' }
  | { readonly kind: 'exit' };

export type ChildReply =
  /** `initMs`: the runtime's own process-wide start (tsge: `initialize({ workers })`), not in any load. */
  | { readonly kind: 'booted'; readonly initMs: number }
  | { readonly kind: 'loaded'; readonly loadMs: number; readonly firstRunMs: number }
  /** `loopGapMs`: the longest gap between this process's event-loop ticks during the round's runs. */
  | { readonly kind: 'round'; readonly samples: number[]; readonly loopGapMs: number }
  | { readonly kind: 'outputs'; readonly outputs: Record<string, HostTensor>; readonly peakRssMB: number }
  | { readonly kind: 'error'; readonly message: string };

async function load(runtime: RuntimeName, file: string, threads: number, feeds: Record<string, HostTensor>): Promise<LoadedRuntime> {
  if (runtime === 'ort-node') return loadOrtNode(file, threads);
  if (runtime === 'ort-web') return loadOrtWeb(new Uint8Array(await readFile(file)), threads);
  const om = new Uint8Array(await readFile(file));
  const ex = await loadModel(om, { threads, warmUp: warmUpShapes(feeds) });
  return { name: 'tsge', run: (f) => ex.run(f) as never, release: () => ex.release(), whenReady: () => ex.whenReady() };
}

let rt: LoadedRuntime | undefined;
let feeds: Record<string, HostTensor> = {};
let last: Record<string, HostTensor> | undefined;

async function handle(req: ChildRequest): Promise<ChildReply | undefined> {
  if (req.kind === 'boot') {
    await preloadRuntime(req.runtime);
    // as a GE user calls GEInitialize once a process: tsge starts its worker threads before models load
    const [, initMs] = await timeIt(async () => {
      if (req.runtime === 'tsge' && req.threads > 1) await initialize({ workers: req.threads });
    });
    // compiling the imported code goes on in V8's background threads for a while
    await untilQuiet();
    return { kind: 'booted', initMs };
  }
  if (req.kind === 'load') {
    feeds = req.feeds;
    // as in the in-process bench: tsge's load time counts loadModel; the first run is the one a
    // caller makes right after it; the rounds start once the workers are up
    const [loaded, loadMs] = await timeIt(() => load(req.runtime, req.file, req.threads, req.feeds));
    rt = loaded;
    const [out, firstRunMs] = await timeIt(() => loaded.run(feeds));
    await loaded.whenReady?.();
    last = out;
    await untilQuiet();
    return { kind: 'loaded', loadMs, firstRunMs };
  }
  if (!rt) throw new Error('bench child: no runtime loaded');
  if (req.kind === 'round') {
    const samples: number[] = [];
    let loopGapMs = 0;
    for (let i = 0; i < req.runs; i++) {
      await settle(req.gapMs);
      // probed only while a run is in flight; this process holds no other runtime, so every gap is its own
      const probe = probeEventLoop();
      const [out, ms] = await timeIt(() => (rt as LoadedRuntime).run(feeds));
      loopGapMs = Math.max(loopGapMs, probe.stop());
      last = out;
      samples.push(ms);
    }
    return { kind: 'round', samples, loopGapMs };
  }
  if (req.kind === 'outputs') return { kind: 'outputs', outputs: last ?? {}, peakRssMB: process.resourceUsage().maxRSS / 1024 };
  await rt.release();
  process.disconnect();
  return undefined;
}

process.on('message', (req: ChildRequest) => {
  handle(req).then(
    (reply) => reply && process.send?.(reply),
    (e: unknown) => process.send?.({ kind: 'error', message: e instanceof Error ? e.message : String(e) } satisfies ChildReply),
  );
});
