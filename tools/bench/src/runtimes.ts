import type { HostTensor } from '@tsge/metadef';

/** One runtime under test, loaded with one model. */
export interface LoadedRuntime {
  readonly name: 'tsge' | 'ort-node' | 'ort-web';
  run(feeds: Readonly<Record<string, HostTensor>>): Promise<Record<string, HostTensor>>;
  release(): Promise<void>;
  /** Resolves once lazily started workers are up (tsge), so the first run is timed on its own. */
  whenReady?(): Promise<void>;
}

/**
 * Imports a runtime's modules ahead of timing its load, so the load counts neither a native addon's
 * start-up (onnxruntime-node) nor importing JavaScript (tsge's kernel libraries, which `loadModel`
 * imports when a model first needs them); compiling WebAssembly stays in the load.
 */
export async function preloadRuntime(name: LoadedRuntime['name']): Promise<void> {
  if (name === 'ort-node') await import('onnxruntime-node');
  else if (name === 'ort-web') await import('onnxruntime-web');
  else await Promise.all([import('@tsge/kernels-js'), import('@tsge/kernels-wasm')]);
}

type OrtModule = typeof import('onnxruntime-node');

function toOrtFeeds(
  ort: Pick<OrtModule, 'Tensor'>,
  feeds: Readonly<Record<string, HostTensor>>,
): Record<string, InstanceType<OrtModule['Tensor']>> {
  const out: Record<string, InstanceType<OrtModule['Tensor']>> = {};
  for (const [name, t] of Object.entries(feeds)) out[name] = new ort.Tensor(t.type as never, t.data as never, t.dims as number[]);
  return out;
}

function fromOrt(results: Record<string, { type: string; dims: readonly number[]; data: unknown }>): Record<string, HostTensor> {
  const out: Record<string, HostTensor> = {};
  for (const [name, t] of Object.entries(results))
    out[name] = { type: t.type as HostTensor['type'], dims: [...t.dims], data: t.data as HostTensor['data'] };
  return out;
}

/** onnxruntime-node on the CPU with `threads` intra-op threads. */
export async function loadOrtNode(modelPath: string, threads: number): Promise<LoadedRuntime> {
  const ort = await import('onnxruntime-node');
  // No spin-waiting between runs: a spinning pool would steal the cores from the runtime measured next.
  const session = await ort.InferenceSession.create(modelPath, {
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    executionProviders: ['cpu'],
    extra: { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } },
  });
  return {
    name: 'ort-node',
    run: async (feeds) => fromOrt((await session.run(toOrtFeeds(ort, feeds))) as never),
    release: () => session.release(),
  };
}

/** onnxruntime-web's wasm backend, running in Node, with `threads` threads. */
export async function loadOrtWeb(modelBytes: Uint8Array, threads: number): Promise<LoadedRuntime> {
  const ort = (await import('onnxruntime-web')) as unknown as OrtModule & { env: { wasm: { numThreads: number; simd?: boolean } } };
  ort.env.wasm.numThreads = threads;
  // as for onnxruntime-node: no spin-waiting, so its threads do not steal the cores between runs
  const session = await ort.InferenceSession.create(modelBytes, {
    executionProviders: ['wasm'],
    extra: { session: { intra_op: { allow_spinning: '0' }, inter_op: { allow_spinning: '0' } } },
  });
  return {
    name: 'ort-web',
    run: async (feeds) => fromOrt((await session.run(toOrtFeeds(ort, feeds))) as never),
    release: () => session.release(),
  };
}
