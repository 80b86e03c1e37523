// LiteRT (@litertjs/core, the TFLite runtime: wasm CPU path with XNNPACK) as a bench runtime. Its
// loader is written for browsers and workers: in Node it needs `self`, `importScripts` (evaluating
// the emscripten script in the global scope), `require` and `__dirname`.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import type { HostTensor } from '@tsge/metadef';

const require = createRequire(import.meta.url);

type LiteRtModule = typeof import('@litertjs/core');
let loaded: Promise<LiteRtModule> | undefined;

function liteRt(): Promise<LiteRtModule> {
  loaded ??= (async () => {
    const wasmDir = path.join(path.dirname(require.resolve('@litertjs/core/package.json')), 'wasm');
    const g = globalThis as Record<string, unknown>;
    g.self ??= globalThis;
    g.require ??= require;
    g.__dirname ??= wasmDir;
    g.importScripts ??= (...urls: string[]) => {
      for (const url of urls) {
        const file = url.startsWith('file://') ? new URL(url).pathname : url;
        vm.runInThisContext(readFileSync(file, 'utf8'), { filename: file });
      }
    };
    const module = (await import('@litertjs/core')) as LiteRtModule;
    // its native logging goes to the console through emscripten; keep the bench output readable
    // and it always tries WebGPU first, which Node lacks: that expected failure is not worth a stack trace
    const { log, info, warn } = console;
    console.warn = (...args: unknown[]) => {
      if (!String(args[0]).startsWith('Failed to create default WebGPU device')) warn(...args);
    };
    try {
      await module.loadLiteRt(`${wasmDir}/`);
    } finally {
      Object.assign(console, { log, info, warn });
    }
    return module;
  })();
  return loaded;
}

/** A .tflite model compiled by LiteRT for its wasm CPU path (single-threaded: Node 20 lacks the relaxed SIMD of its threaded build). */
export async function loadLiteRt(file: string): Promise<{ run(feeds: readonly HostTensor[]): Promise<HostTensor[]>; release(): void }> {
  const lr = await liteRt();
  const model = await lr.loadAndCompile(new Uint8Array(readFileSync(file)), { accelerator: 'wasm' });
  const outputs = model.getOutputDetails().map((d) => ({ dtype: d.dtype as HostTensor['type'], shape: Array.from(d.shape) }));
  return {
    async run(feeds) {
      const tensors = feeds.map((t) => new lr.Tensor(t.data as Float32Array, [...t.dims]));
      const results = await model.run(tensors);
      for (const t of tensors) t.delete();
      const out = results.map((r, i) => {
        const data = r.toTypedArray().slice();
        return { type: outputs[i]?.dtype ?? 'float32', dims: outputs[i]?.shape ?? [data.length], data } as HostTensor;
      });
      for (const r of results) r.delete();
      return out;
    },
    release: () => model.delete(),
  };
}
