import type { Engine } from './engine.js';
import { createInterpreterEngine } from './interpreter-engine.js';

export type EngineName = 'interpreter' | 'pipeline';
export const ENGINE_NAMES: readonly EngineName[] = ['interpreter', 'pipeline'];
/** The default engine: the interpreter until @tsge/ge's pipeline can run the suites. */
export const DEFAULT_ENGINE: EngineName = 'interpreter';

export async function createEngine(name: EngineName): Promise<Engine> {
  if (name === 'interpreter') return createInterpreterEngine();
  const { createPipelineEngine } = await import('./pipeline-engine.js');
  return createPipelineEngine();
}
