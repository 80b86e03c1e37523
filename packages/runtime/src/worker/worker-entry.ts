// Entry of every pool worker: imports the handler module named by the pool, runs its setup, reports
// ready, then enters its loop.
import { parentPort, receiveMessageOnPort } from 'node:worker_threads';
import { type WasmModule, wasm } from '../wasm.js';
import type { WorkerContext, WorkerHandlerModule, WorkerInit, WorkerPost, WorkerReply } from './protocol.js';

const port = parentPort;
if (port) {
  const reply = (message: WorkerReply): void => port.postMessage(message);
  port.once('message', async (init: WorkerInit) => {
    try {
      const handler = (await import(init.handler)) as WorkerHandlerModule;
      const context: WorkerContext = {
        index: init.index,
        memory: init.memory,
        data: init.data,
        post: (message) => reply({ type: 'message', message }),
        // the loop may block this thread's event loop: the owner's posts are taken synchronously
        receive: () => (receiveMessageOnPort(port)?.message as WorkerPost | undefined)?.message,
        instantiateKernelModule: async (module) => (await wasm.instantiate(module as WasmModule, { env: { memory: init.memory } })).exports,
      };
      await handler.setup(context);
      reply({ type: 'ready' });
      if (handler.loop) await handler.loop(context);
    } catch (error) {
      reply({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
  });
}
