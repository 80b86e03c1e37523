// Entry of every pool worker: imports the handler module named by the pool, runs its setup, reports
// ready, then enters its loop. A reusable handler's thread then tears down and takes another init.
import { parentPort, receiveMessageOnPort } from 'node:worker_threads';
import { DeviceMemoryError } from '../memory/device-memory.js';
import { createRegionAllocator } from '../memory/region-allocator.js';
import { viewOf } from '../memory/views.js';
import { createEventTable } from '../stream/event-table.js';
import { runStreamsBlocking, runStreamsLocal } from '../stream/run-streams.js';
import { type WasmModule, wasm } from '../wasm.js';
import { collectGarbage } from './collect-garbage.js';
import { prefault } from './prefault.js';
import type { WorkerContext, WorkerHandlerModule, WorkerInit, WorkerPost, WorkerPreload, WorkerReply } from './protocol.js';

const port = parentPort;
if (port) {
  const reply = (message: WorkerReply): void => port.postMessage(message);
  const serve = async (init: WorkerInit): Promise<void> => {
    try {
      if (init.prefault) prefault(init.memory, init.prefault[0], init.prefault[1]);
      const handler = (await import(init.handler)) as WorkerHandlerModule;
      const context: WorkerContext = {
        index: init.index,
        memory: init.memory,
        data: init.data,
        post: (message) => reply({ type: 'message', message }),
        // the loop may block this thread's event loop: the owner's posts are taken synchronously
        receive: () => (receiveMessageOnPort(port)?.message as WorkerPost | undefined)?.message,
        instantiateKernelModule: async (module) => (await wasm.instantiate(module as WasmModule, { env: { memory: init.memory } })).exports,
        view: (dtype, offset, count) => viewOf(init.memory.buffer, dtype, offset, count),
        eventTable: createEventTable,
        runStreams: runStreamsBlocking,
        runLocalStreams: (streams, events, launch) => runStreamsLocal(streams, events.length, launch),
        arena(offset, bytes) {
          // the owner reserved the range: the memory already covers it, so nothing grows here
          const regions = createRegionAllocator({
            base: offset,
            ensureCapacity: (end) => {
              if (end > offset + bytes) throw new DeviceMemoryError(end - offset, bytes);
            },
          });
          return { allocate: (size) => regions.allocate(size), free: (at) => regions.free(at) };
        },
      };
      await handler.setup(context);
      const reusable = typeof handler.loop === 'function' && typeof handler.teardown === 'function';
      reply({ type: 'ready', reusable });
      if (handler.loop) await handler.loop(context);
      if (reusable) {
        await handler.teardown?.(context);
        // posts the ended loop never took belong to the pool that is gone
        while (receiveMessageOnPort(port) !== undefined) {}
        port.once('message', accept);
        reply({ type: 'released' });
        // before the next init is taken, off the releasing caller's wait
        collectGarbage();
      }
    } catch (error) {
      reply({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
  };
  // a thread started ahead of its pool imports the handler now, so the pool's init finds it loaded
  const preload = async (message: WorkerPreload): Promise<void> => {
    try {
      await import(message.handler);
      port.once('message', accept);
      reply({ type: 'released' });
    } catch (error) {
      reply({ type: 'failed', message: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    }
  };
  const accept = (message: WorkerInit | WorkerPreload): void => void (message.type === 'preload' ? preload(message) : serve(message));
  port.once('message', accept);
}
