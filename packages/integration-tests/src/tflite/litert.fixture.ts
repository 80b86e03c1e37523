// LiteRT (the TFLite runtime, @litertjs/core) as the independent reference for TFLite models.
// Its wasm loader is written for browsers and workers: in Node it needs `self`, `importScripts`
// (evaluating the emscripten script in the global scope), `require` and `__dirname`.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import vm from 'node:vm';
import type { HostTensor } from '@tsge/metadef';

const require = createRequire(import.meta.url);
const coreDir = path.dirname(require.resolve('@litertjs/core/package.json'));
const wasmDir = path.join(coreDir, 'wasm');

type LiteRtModule = typeof import('@litertjs/core');
let loaded: Promise<LiteRtModule> | undefined;

function installShims(): void {
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
}

/** Loads LiteRT's wasm runtime once (single-threaded: Node 20 lacks the relaxed SIMD its threaded build needs). */
export function liteRt(): Promise<LiteRtModule> {
  loaded ??= (async () => {
    installShims();
    const module = (await import('@litertjs/core')) as LiteRtModule;
    // its native logging goes to stdout/stderr through emscripten; keep test output readable
    const { log, info, warn } = console;
    await module.loadLiteRt(`${wasmDir}/`);
    Object.assign(console, { log, info, warn });
    return module;
  })();
  return loaded;
}

export interface LiteRtModel {
  readonly inputs: readonly { name: string; dtype: string; shape: number[] }[];
  readonly outputs: readonly { name: string; dtype: string; shape: number[] }[];
  run(feeds: readonly HostTensor[]): Promise<HostTensor[]>;
  delete(): void;
}

/** Compiles a .tflite file for LiteRT's wasm (XNNPACK) CPU path. */
export async function compileLiteRt(file: string): Promise<LiteRtModel> {
  const lr = await liteRt();
  const model = await lr.loadAndCompile(new Uint8Array(readFileSync(file)), { accelerator: 'wasm' });
  const details = (list: readonly { name: string; dtype: string; shape: Int32Array }[]) =>
    list.map((d) => ({ name: d.name, dtype: d.dtype, shape: Array.from(d.shape) }));
  const outputs = details(model.getOutputDetails());
  return {
    inputs: details(model.getInputDetails()),
    outputs,
    async run(feeds) {
      const tensors = feeds.map((t) => new lr.Tensor(t.data as Float32Array, [...t.dims]));
      const results = await model.run(tensors);
      for (const t of tensors) t.delete();
      const out = results.map((r, i) => {
        const data = r.toTypedArray().slice();
        const dtype = (outputs[i]?.dtype ?? 'float32') as HostTensor['type'];
        return { type: dtype, dims: outputs[i]?.shape ?? [data.length], data } as HostTensor;
      });
      for (const r of results) r.delete();
      return out;
    },
    delete: () => model.delete(),
  };
}
