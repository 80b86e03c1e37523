// Test helpers for flows on NATS (@tsge/dflow/testing): start a nats-server (JetStream, loopback,
// a free port, a temporary store) and host agents, and stop exactly the processes started here, by PID.
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { nodeArgsFor } from '../deploy/spawn-host.js';

export interface NatsServer {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const port = (server.address() as net.AddressInfo).port;
      server.close(() => resolve(port));
    });
  });
}

function waitForPort(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = (): void => {
      const socket = net.connect(port, '127.0.0.1');
      socket.once('data', () => {
        socket.destroy();
        resolve(); // the server greets with INFO once it is ready
      });
      socket.once('error', () => {
        socket.destroy();
        if (Date.now() > deadline) reject(new Error(`nats-server did not listen on ${port}`));
        else setTimeout(attempt, 50);
      });
    };
    attempt();
  });
}

function stopProcess(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(child.pid, 'SIGKILL');
    }, 5000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    process.kill(child.pid as number, signal);
  });
}

export async function startNatsServer(): Promise<NatsServer> {
  const port = await freePort();
  const store = mkdtempSync(path.join(os.tmpdir(), 'tsge-nats-'));
  const child = spawn('nats-server', ['-js', '-sd', store, '-a', '127.0.0.1', '-p', String(port)], { stdio: 'ignore' });
  const spawned = new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', reject);
  });
  await spawned;
  await waitForPort(port, 10000);
  return {
    url: `nats://127.0.0.1:${port}`,
    pid: child.pid as number,
    async stop() {
      await stopProcess(child);
      rmSync(store, { recursive: true, force: true });
    },
  };
}

export interface Agent {
  readonly host: string;
  readonly pid: number;
  stop(signal?: NodeJS.Signals): Promise<void>;
}

const CLI = new URL(`../cli/main${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url);

/** Starts `tsge-dflow agent` as its own process. */
export function startAgent(url: string, host: string): Agent {
  const child = fork(CLI, ['agent', '--nats', url, '--host', host, '--quiet'], {
    execArgv: nodeArgsFor(CLI),
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return { host, pid: child.pid as number, stop: (signal) => stopProcess(child, signal) };
}
