import type { ChildProcess } from 'node:child_process';
import type { Worker } from 'node:worker_threads';
import { TsgeError } from '@tsge/metadef';
import type { SpawnProcessor } from '../engine/flow-engine.js';
import { graphPointOm } from '../engine/graph-processor.js';
import { isMovable, markMovable } from '../engine/ownership.js';
import type { Emission, PointProcessor } from '../engine/processor.js';
import type { FlowMessage } from '../message.js';
import type { PlacementFactory } from '../start-flow.js';
import { spawnChildHost, spawnWorkerHost } from './spawn-host.js';
import { type HostReply, type HostRequest, fromWireError, toWire, transferables } from './wire.js';

const HOST_ENTRY = new URL(`./point-host${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);

interface Endpoint {
  send(request: HostRequest, transfer?: ArrayBuffer[]): void;
  onReply(listener: (reply: HostReply) => void): void;
  onExit(listener: (reason: string) => void): void;
  kill(): Promise<void>;
}

function workerEndpoint(worker: Worker): Endpoint {
  return {
    send: (request, transfer) => worker.postMessage(request, transfer ?? []),
    onReply: (listener) => worker.on('message', listener),
    onExit: (listener) => {
      worker.on('error', (e) => listener(e.message));
      worker.on('exit', (code) => listener(`exited with code ${code}`));
    },
    kill: async () => {
      await worker.terminate();
    },
  };
}

function childEndpoint(child: ChildProcess): Endpoint {
  return {
    send: (request) => {
      if (child.connected) child.send(request);
    },
    onReply: (listener) => child.on('message', (m) => listener(m as HostReply)),
    onExit: (listener) => {
      child.on('error', (e) => listener(e.message));
      child.on('exit', (code, signal) => listener(`exited with ${signal ?? `code ${code}`}`));
    },
    kill: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill();
      await exited;
    },
  };
}

/**
 * A PointProcessor whose point runs in another thread or process: requests carry the inputs
 * (moved, not copied, when the engine owns them and a worker takes them), replies the emissions.
 */
async function remoteProcessor(
  endpoint: Endpoint,
  where: 'worker thread' | 'child process',
  omOf: (node: Parameters<SpawnProcessor>[0]) => Promise<Uint8Array>,
  ...[node, instance, later]: Parameters<SpawnProcessor>
): Promise<PointProcessor> {
  const pending = new Map<number, { resolve(e: readonly Emission[]): void; reject(e: unknown): void }>();
  let ready: { resolve(): void; reject(e: unknown): void } | undefined;
  let closed: (() => void) | undefined;
  let dead: string | undefined;
  let nextId = 0;
  const ownsBuffers = where === 'worker thread';
  endpoint.onReply((reply) => {
    switch (reply.type) {
      case 'ready':
        ready?.resolve();
        return;
      case 'result':
        if (ownsBuffers) for (const e of reply.emissions) for (const v of e.outputs) if (v !== undefined) markMovable(v);
        pending.get(reply.id)?.resolve(reply.emissions);
        pending.delete(reply.id);
        return;
      case 'failed':
        if (reply.id === undefined) ready?.reject(fromWireError(reply.error));
        else {
          pending.get(reply.id)?.reject(fromWireError(reply.error));
          pending.delete(reply.id);
        }
        return;
      case 'later':
        later.emitLater(reply.emissions);
        return;
      case 'later-failed':
        later.failLater(reply.header, fromWireError(reply.error));
        return;
      case 'closed':
        closed?.();
        return;
    }
  });
  endpoint.onExit((reason) => {
    if (dead !== undefined) return;
    dead = reason;
    const error = TsgeError.of('TSGE-E8115', { where, node: node.name, reason });
    ready?.reject(error);
    for (const p of pending.values()) p.reject(error);
    pending.clear();
    closed?.();
  });
  const submodel = node.point.kind === 'graph' ? await omOf(node) : undefined;
  const started = new Promise<void>((resolve, reject) => {
    ready = { resolve, reject };
  });
  endpoint.send({ type: 'init', node: graphPointless(node), instance, ...(submodel ? { submodel } : {}) });
  try {
    await started;
  } catch (e) {
    await endpoint.kill();
    throw e;
  }
  return {
    process(group: number, inputs: readonly FlowMessage[]): Promise<readonly Emission[]> {
      if (dead !== undefined) return Promise.reject(TsgeError.of('TSGE-E8115', { where, node: node.name, reason: dead }));
      const id = nextId++;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        const values = inputs.flatMap((m) => (m.value !== undefined && isMovable(m.value) ? [m.value] : []));
        endpoint.send({ type: 'process', id, group, inputs: inputs.map(toWire) }, ownsBuffers ? transferables(values) : []);
      });
    },
    async close(): Promise<void> {
      if (dead === undefined) {
        const done = new Promise<void>((resolve) => {
          closed = resolve;
        });
        endpoint.send({ type: 'close' });
        await Promise.race([done, new Promise((r) => setTimeout(r, 2000))]);
      }
      await endpoint.kill();
    },
  };
}

/** The node as the host needs it: graph points get their `.om` with the init request instead of a path. */
function graphPointless(node: Parameters<SpawnProcessor>[0]): Parameters<SpawnProcessor>[0] {
  if (node.point.kind !== 'graph') return node;
  return { ...node, point: { ...node.point, model: { kind: 'submodel', name: node.name } } };
}

function placement(where: 'worker thread' | 'child process'): PlacementFactory {
  return (runnable) => {
    const endpoints: Endpoint[] = [];
    // A model file is compiled once per node, here, and its .om sent to every instance's host.
    const oms = new Map<string, Promise<Uint8Array>>();
    const omOf = (node: Parameters<SpawnProcessor>[0]): Promise<Uint8Array> => {
      let om = oms.get(node.name);
      if (!om && node.point.kind === 'graph') {
        om = graphPointOm(node.point, {
          node: node.name,
          submodel: async (name) => {
            const bytes = runnable.submodels.get(name);
            if (!bytes) throw TsgeError.of('TSGE-E8102', { node: node.name, reason: `the flow model has no submodel ${name}` });
            return bytes;
          },
        });
        oms.set(node.name, om);
      }
      return om as Promise<Uint8Array>;
    };
    const spawn: SpawnProcessor = (node, instance, later) => {
      const endpoint = where === 'worker thread' ? workerEndpoint(spawnWorkerHost(HOST_ENTRY)) : childEndpoint(spawnChildHost(HOST_ENTRY));
      endpoints.push(endpoint);
      return remoteProcessor(endpoint, where, omOf, node, instance, later);
    };
    return {
      spawn,
      close: async () => {
        await Promise.all(endpoints.map((e) => e.kill()));
      },
    };
  };
}

/** Each node instance on its own worker thread, with its own executor. */
export const workerPlacement: PlacementFactory = placement('worker thread');
/** Each node instance in its own child process. */
export const processPlacement: PlacementFactory = placement('child process');
