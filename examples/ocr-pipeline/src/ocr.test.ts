import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { deployFlow, loadFlowModel, saveFlowModel, startFlow } from '@tsge/dflow';
import { type Agent, type NatsServer, startAgent, startNatsServer } from '@tsge/dflow/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ocrGraph } from './pipeline.js';
import { collectPages, readPage } from './read-page.js';
import { characterAccuracy, renderPage } from './render-page.js';

const LINES = ['Hello World 2024', 'tsge dataflow', 'PP-OCRv4 pipeline', 'quick brown fox 42'];
const PAGE = { height: 320, width: 480 } as const;

let server: NatsServer;
let agents: Agent[] = [];
let dir: string;
let model: Uint8Array;

beforeAll(async () => {
  server = await startNatsServer();
  agents = [startAgent(server.url, 'a'), startAgent(server.url, 'b')]; // they boot while the models compile
  dir = mkdtempSync(path.join(os.tmpdir(), 'tsge-ocr-'));
  model = await saveFlowModel(ocrGraph(PAGE)); // det, cls and rec compiled once, for both tests
}, 120_000);
afterAll(async () => {
  await Promise.all(agents.map((a) => a.stop()));
  await server?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('the OCR pipeline', () => {
  it('reads the lines of a rendered page in process with >= 95% character accuracy', async () => {
    const session = await startFlow(await loadFlowModel(model), { fetchTimeoutMs: 60_000 });
    try {
      const text = await readPage(session, renderPage(LINES, PAGE));
      expect(text.lines.length).toBe(LINES.length);
      expect(characterAccuracy(LINES, text.lines)).toBeGreaterThanOrEqual(0.95);
    } finally {
      await session.close();
    }
  }, 120_000);

  it('reads it deployed on two host agents over NATS with >= 95% character accuracy', async () => {
    writeFileSync(path.join(dir, 'ocr.om'), model);
    const deployment = {
      version: 1,
      name: 'ocr',
      model: 'ocr.om',
      placement: [
        { node: 'pre', host: 'a' },
        { node: 'det', host: 'a' },
        { node: 'post', host: 'a' },
        { node: 'cls', host: 'b' },
        { node: 'rotate', host: 'b' },
        { node: 'rec', host: 'b' },
        { node: 'decode', host: 'a' },
      ],
    };
    writeFileSync(path.join(dir, 'ocr.json'), JSON.stringify(deployment));
    const session = await deployFlow({ servers: server.url, deployment: path.join(dir, 'ocr.json'), readyTimeoutMs: 90_000 });
    try {
      await session.feed([renderPage(LINES, PAGE)], { transactionId: 1 });
      const [page] = await collectPages(session, 1, 60_000);
      expect(page?.transactionId).toBe(1);
      expect(page?.lines.length).toBe(LINES.length);
      expect(characterAccuracy(LINES, page?.lines ?? [])).toBeGreaterThanOrEqual(0.95);
    } finally {
      await session.close();
    }
  }, 180_000);
});
