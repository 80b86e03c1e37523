// Runs tests sent by the main thread, one at a time, so a hang or crash ends only this worker.
import { parentPort } from 'node:worker_threads';
import type { Tolerance } from './compare.js';
import type { Engine } from './engine.js';
import { type DeviceName, type EngineName, createEngine } from './engines.js';
import { runTest } from './run-test.js';
import type { TestCase } from './test-case.js';

export interface WorkerRequest {
  readonly id: number;
  readonly test: TestCase;
  readonly engine: EngineName;
  readonly device: DeviceName;
  readonly tolerance: Tolerance;
}

const engines = new Map<string, Promise<Engine>>();

parentPort?.on('message', async (request: WorkerRequest) => {
  const key = `${request.engine}@${request.device}`;
  let engine = engines.get(key);
  if (!engine) {
    engine = createEngine(request.engine, request.device);
    engines.set(key, engine);
  }
  try {
    const result = await runTest(request.test, await engine, request.tolerance);
    parentPort?.postMessage({ id: request.id, result });
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    parentPort?.postMessage({ id: request.id, result: { name: request.test.name, status: 'failed', reason, error: true } });
  }
});
