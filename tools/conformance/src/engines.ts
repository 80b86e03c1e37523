import type { Engine } from './engine.js';

/** 'pipeline-host': the same path with the executor in host mode (task by task), to compare modes. */
export type EngineName = 'interpreter' | 'pipeline' | 'pipeline-host';
export const ENGINE_NAMES: readonly EngineName[] = ['interpreter', 'pipeline', 'pipeline-host'];
/** The default engine: the public @tsge/ge path (parse → build .om → load → run). */
export const DEFAULT_ENGINE: EngineName = 'pipeline';

/** Engines load lazily, in the worker, so a broken package fails tests instead of the runner. */
export async function createEngine(name: EngineName): Promise<Engine> {
  if (name === 'interpreter') {
    const { createInterpreterEngine } = await import('./interpreter-engine.js');
    return createInterpreterEngine();
  }
  const { createPipelineEngine } = await import('./pipeline-engine.js');
  return createPipelineEngine(name === 'pipeline-host' ? 'host' : 'sink');
}
