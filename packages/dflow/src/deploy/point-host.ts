// Entry of a worker thread or child process that runs one instance of one node's point.
import { parentPort } from 'node:worker_threads';
import { createProcessor } from '../engine/create-processor.js';
import type { Emission, PointProcessor } from '../engine/processor.js';
import { type HostReply, type HostRequest, fromWire, toWireError, transferables } from './wire.js';

type Send = (reply: HostReply, transfer?: ArrayBuffer[]) => void;

const port = parentPort;
const send: Send = port
  ? (reply, transfer) => port.postMessage(reply, transfer ?? [])
  : (reply) => {
      process.send?.(reply);
    };

/** Buffers of emitted values: a worker moves them to the parent instead of copying. */
const moved = (emissions: readonly Emission[]): ArrayBuffer[] => (port ? transferables(emissions.flatMap((e) => e.outputs)) : []);

let processor: PointProcessor | undefined;

async function handle(request: HostRequest): Promise<void> {
  switch (request.type) {
    case 'init': {
      const { node, instance, submodel } = request;
      try {
        processor = await createProcessor(node.point, {
          node: node.name,
          instance,
          submodel: async () => {
            if (!submodel) throw new Error(`node ${node.name} has no submodel`);
            return submodel;
          },
          emitLater: (emissions) => send({ type: 'later', emissions }, moved(emissions)),
          failLater: (header, error) => send({ type: 'later-failed', header, error: toWireError(error) }),
        });
        send({ type: 'ready' });
      } catch (e) {
        send({ type: 'failed', id: undefined, error: toWireError(e) });
      }
      return;
    }
    case 'process': {
      try {
        if (!processor) throw new Error('the point host was not initialised');
        const started = performance.now();
        const emissions = await processor.process(request.group, request.inputs.map(fromWire));
        send({ type: 'result', id: request.id, emissions, procMs: performance.now() - started }, moved(emissions));
      } catch (e) {
        send({ type: 'failed', id: request.id, error: toWireError(e) });
      }
      return;
    }
    case 'close':
      await processor?.close().catch(() => {});
      send({ type: 'closed' });
      if (port) port.close();
      else process.disconnect?.();
      return;
  }
}

if (port) port.on('message', (m: HostRequest) => void handle(m));
else process.on('message', (m: HostRequest) => void handle(m));
