import type { Engine } from './engine.js';

/**
 * 'pipeline-host': the same path with the executor in host mode (task by task), to compare modes.
 * 'ort-adapter': the same models through @tsge/adapter-onnxruntime's onnxruntime-node API.
 */
export type EngineName = 'interpreter' | 'pipeline' | 'pipeline-host' | 'ort-adapter';
export const ENGINE_NAMES: readonly EngineName[] = ['interpreter', 'pipeline', 'pipeline-host', 'ort-adapter'];
/** The default engine: the public @tsge/ge path (parse → build .om → load → run). */
export const DEFAULT_ENGINE: EngineName = 'pipeline';

/** Engines load lazily, in the worker, so a broken package fails tests instead of the runner. */
export async function createEngine(name: EngineName): Promise<Engine> {
  if (name === 'interpreter') {
    const { createInterpreterEngine } = await import('./interpreter-engine.js');
    return createInterpreterEngine();
  }
  if (name === 'ort-adapter') {
    const { createOrtAdapterEngine } = await import('./ort-adapter-engine.js');
    return createOrtAdapterEngine();
  }
  const { createPipelineEngine } = await import('./pipeline-engine.js');
  return createPipelineEngine(name === 'pipeline-host' ? 'host' : 'sink');
}
