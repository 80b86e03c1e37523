// Runs tests sent by the main thread, one at a time, so a hang or crash ends only this worker.
import { parentPort } from 'node:worker_threads';
import type { Tolerance } from './compare.js';
import type { Engine } from './engine.js';
import { type EngineName, createEngine } from './engines.js';
import { runTest } from './run-test.js';
import type { TestCase } from './test-case.js';

export interface WorkerRequest {
  readonly id: number;
  readonly test: TestCase;
  readonly engine: EngineName;
  readonly tolerance: Tolerance;
}

const engines = new Map<EngineName, Promise<Engine>>();

parentPort?.on('message', async (request: WorkerRequest) => {
  let engine = engines.get(request.engine);
  if (!engine) {
    engine = createEngine(request.engine);
    engines.set(request.engine, engine);
  }
  try {
    const result = await runTest(request.test, await engine, request.tolerance);
    parentPort?.postMessage({ id: request.id, result });
  } catch (error) {
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    parentPort?.postMessage({ id: request.id, result: { name: request.test.name, status: 'failed', reason, error: true } });
  }
});
