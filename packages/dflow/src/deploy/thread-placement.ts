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

/** Restarts of one instance's host after it died; beyond them the instance fails every transaction at once. */
const MAX_HOST_RESTARTS = 3;

/** One started host (a worker thread or child process) with its point initialised. */
interface HostConnection {
  readonly endpoint: Endpoint;
  /** Why the host died, once it did. */
  dead: string | undefined;
  readonly pending: Map<number, { resolve(e: readonly Emission[]): void; reject(e: unknown): void }>;
  closed: (() => void) | undefined;
}

/**
 * A PointProcessor whose point runs in another thread or process: requests carry the inputs
 * (moved, not copied, when the engine owns them and a worker takes them), replies the emissions.
 * A host that dies (process.exit, an uncaught exception, a crash) fails the transaction it was
 * running with TSGE-E8115 and is started again, up to MAX_HOST_RESTARTS times; after that every
 * transaction fails at once with TSGE-E8115, so the flow never waits on a dead host.
 */
async function remoteProcessor(
  open: () => Endpoint,
  where: 'worker thread' | 'child process',
  omOf: (node: Parameters<SpawnProcessor>[0]) => Promise<Uint8Array>,
  ...[node, instance, later]: Parameters<SpawnProcessor>
): Promise<PointProcessor> {
  let nextId = 0;
  /** How long the host took for the last result (one request is in flight at a time). */
  let lastProcMs: number | undefined;
  let restarts = 0;
  let closing = false;
  const ownsBuffers = where === 'worker thread';
  const submodel = node.point.kind === 'graph' ? await omOf(node) : undefined;
  const deadError = (reason: string): TsgeError => TsgeError.of('TSGE-E8115', { where, node: node.name, reason });

  const start = async (): Promise<HostConnection> => {
    const endpoint = open();
    const host: HostConnection = { endpoint, dead: undefined, pending: new Map(), closed: undefined };
    let ready: { resolve(): void; reject(e: unknown): void } | undefined;
    const started = new Promise<void>((resolve, reject) => {
      ready = { resolve, reject };
    });
    endpoint.onReply((reply) => {
      switch (reply.type) {
        case 'ready':
          ready?.resolve();
          return;
        case 'result':
          if (ownsBuffers) for (const e of reply.emissions) for (const v of e.outputs) if (v !== undefined) markMovable(v);
          lastProcMs = reply.procMs;
          host.pending.get(reply.id)?.resolve(reply.emissions);
          host.pending.delete(reply.id);
          return;
        case 'failed':
          if (reply.id === undefined) ready?.reject(fromWireError(reply.error));
          else {
            host.pending.get(reply.id)?.reject(fromWireError(reply.error));
            host.pending.delete(reply.id);
          }
          return;
        case 'later':
          later.emitLater(reply.emissions);
          return;
        case 'later-failed':
          later.failLater(reply.header, fromWireError(reply.error));
          return;
        case 'closed':
          host.closed?.();
          return;
      }
    });
    endpoint.onExit((reason) => {
      if (host.dead !== undefined) return;
      host.dead = reason;
      const error = deadError(reason);
      ready?.reject(error);
      for (const p of host.pending.values()) p.reject(error);
      host.pending.clear();
      host.closed?.();
      if (live === host && !closing) {
        const next = restart(reason);
        next.catch(() => {}); // surfaced by the next process()
        current = next;
      }
    });
    endpoint.send({ type: 'init', node: graphPointless(node), instance, ...(submodel ? { submodel } : {}) });
    try {
      await started;
    } catch (e) {
      await endpoint.kill();
      throw e;
    }
    live = host;
    return host;
  };

  /** The host that runs the point now (a death of any other is old news). */
  let live: HostConnection | undefined;
  let current: Promise<HostConnection>;
  const restart = (reason: string): Promise<HostConnection> => {
    if (restarts >= MAX_HOST_RESTARTS)
      return Promise.reject(deadError(`${reason}; not restarted again after ${MAX_HOST_RESTARTS} restarts`));
    restarts++;
    return start();
  };
  await (current = start());

  return {
    get lastProcMs() {
      return lastProcMs;
    },
    async process(group: number, inputs: readonly FlowMessage[]): Promise<readonly Emission[]> {
      const host = await current;
      if (host.dead !== undefined) throw deadError(host.dead);
      const id = nextId++;
      return new Promise((resolve, reject) => {
        host.pending.set(id, { resolve, reject });
        const values = inputs.flatMap((m) => (m.value !== undefined && isMovable(m.value) ? [m.value] : []));
        host.endpoint.send({ type: 'process', id, group, inputs: inputs.map(toWire) }, ownsBuffers ? transferables(values) : []);
      });
    },
    async close(): Promise<void> {
      closing = true;
      const host = await current.catch(() => undefined);
      if (!host) return;
      if (host.dead === undefined) {
        const done = new Promise<void>((resolve) => {
          host.closed = resolve;
        });
        host.endpoint.send({ type: 'close' });
        await Promise.race([done, new Promise((r) => setTimeout(r, 2000))]);
      }
      await host.endpoint.kill();
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
    const open = (): Endpoint => {
      const endpoint = where === 'worker thread' ? workerEndpoint(spawnWorkerHost(HOST_ENTRY)) : childEndpoint(spawnChildHost(HOST_ENTRY));
      endpoints.push(endpoint);
      return endpoint;
    };
    const spawn: SpawnProcessor = (node, instance, later) => remoteProcessor(open, where, omOf, node, instance, later);
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
