// GE initialises its runtime once per process before any model loads; here that is starting the
// worker threads: a Node worker boots, compiles Node's own modules and imports the kernel code
// (~150 ms of CPU each), which a first model would otherwise pay during its load and first run.
import { type KernelLibraryV1, TsgeError } from '@tsge/metadef';
import { compileEagerly, defaultThreadCount, enableEagerWasmTierUp, prestartWorkers as prestartThreads } from '@tsge/runtime';
import { loadDefaultLibraries } from './model/kernel-set.js';
import { sinkHandlerUrl } from './sink/sink-handler.js';

/**
 * Starts `threads` worker threads (default: the CPU device's default thread count) for models
 * loaded later, with the kernel libraries imported on this thread and in each worker. A model
 * loaded with up to that many threads takes them instead of starting its own, so its load and its
 * first run pay no thread start. They never keep the process alive; `releaseWorkers` ends them.
 * Resolves with the number of threads waiting.
 */
export async function prestartWorkers(threads?: number): Promise<number> {
  const count = threads ?? defaultThreadCount();
  if (!Number.isSafeInteger(count) || count < 1)
    throw TsgeError.of('TSGE-E7002', { option: 'threads', value: String(threads), reason: 'expected a positive integer' });
  const [, waiting] = await Promise.all([
    loadDefaultLibraries().then(warmLibraries),
    prestartThreads({ size: count, handler: sinkHandlerUrl() }).catch((error: unknown) => {
      throw TsgeError.of(
        'TSGE-E6009',
        { worker: 'prestart', reason: error instanceof Error ? error.message : String(error) },
        undefined,
        error,
      );
    }),
  ]);
  return waiting;
}

/**
 * Compiles the default libraries' code on this thread, for both memory kinds (models with workers
 * get shared memory, others not); the workers adopt it at each model's setup.
 */
function warmLibraries(libraries: readonly KernelLibraryV1[]): void {
  // as the CPU device does before it compiles anything: modules compiled before the flag would
  // run their first several runs on baseline code
  enableEagerWasmTierUp();
  // every function now, not at its first call inside a run
  compileEagerly(() => {
    for (const library of libraries) {
      library.compiledCode?.warm?.(true);
      library.compiledCode?.warm?.(false);
    }
  });
}

export { releaseSpareThreads as releaseWorkers } from '@tsge/runtime';
