import type { Engine } from './engine.js';

/**
 * 'pipeline-host': the same path with the executor in host mode (task by task), to compare modes.
 * 'ort-adapter': the same models through @tsge/adapter-onnxruntime's onnxruntime-node API.
 */
export type EngineName = 'interpreter' | 'pipeline' | 'pipeline-host' | 'ort-adapter';
export const ENGINE_NAMES: readonly EngineName[] = ['interpreter', 'pipeline', 'pipeline-host', 'ort-adapter'];
/** The default engine: the public @tsge/ge path (parse → build .om → load → run). */
export const DEFAULT_ENGINE: EngineName = 'pipeline';

/** Devices the pipeline engines can load models on (`--device`); 'js' also compiles for target js. */
export type DeviceName = 'cpu' | 'js';
export const DEVICE_NAMES: readonly DeviceName[] = ['cpu', 'js'];

/** Engines load lazily, in the worker, so a broken package fails tests instead of the runner. */
export async function createEngine(name: EngineName, device: DeviceName = 'cpu'): Promise<Engine> {
  if (device !== 'cpu' && !name.startsWith('pipeline')) throw new Error(`--device ${device} needs a pipeline engine, not ${name}`);
  if (name === 'interpreter') {
    const { createInterpreterEngine } = await import('./interpreter-engine.js');
    return createInterpreterEngine();
  }
  if (name === 'ort-adapter') {
    const { createOrtAdapterEngine } = await import('./ort-adapter-engine.js');
    return createOrtAdapterEngine();
  }
  const { createPipelineEngine } = await import('./pipeline-engine.js');
  return createPipelineEngine(name === 'pipeline-host' ? 'host' : 'sink', device);
}
