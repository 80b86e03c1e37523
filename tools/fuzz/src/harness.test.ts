import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCampaignRegistry } from './campaign.js';
import { classifyError } from './classify.js';
import { fuzzMain } from './main.js';
import { mutateBytes } from './mutate/bytes.js';
import { encodeWire, mutateWire, parseWire } from './mutate/protobuf-wire.js';
import { createChildPool } from './pool.js';
import { createRng } from './rng.js';
import { runCampaign } from './run-campaign.js';
import { registry as fixtures } from './testing/harness-campaigns.fixture.js';

const registryUrl = new URL('./testing/harness-campaigns.fixture.ts', import.meta.url).href;

describe('fuzz harness', () => {
  it('reports each way a case can end, and replaces killed processes', async () => {
    const pool = createChildPool({ size: 2, registryUrl, timeoutMs: 3000, rssLimitBytes: 400 * 1024 * 1024 });
    // the balloon gets its own pool with a long timeout: on a loaded machine growing to the RSS limit
    // took longer than the 3 s that tells a spinning case apart, and it was reported as a hang
    const slow = createChildPool({ size: 1, registryUrl, timeoutMs: 60_000, rssLimitBytes: 400 * 1024 * 1024 });
    try {
      const bytes = new Uint8Array(8);
      const outcome = async (name: string) => (await pool.run(name, bytes)).outcome;
      expect(await outcome('ok')).toBe('ok');
      const coded = await pool.run('coded', bytes);
      expect([coded.outcome, coded.code]).toEqual(['coded', 'TSGE-E2001']);
      const typeError = await pool.run('type-error', bytes);
      expect([typeError.outcome, typeError.errorName]).toEqual(['engine', 'TypeError']);
      const wrapped = await pool.run('wrapped', bytes);
      expect([wrapped.outcome, wrapped.code, wrapped.errorName]).toEqual(['engine', 'TSGE-E6007', 'RangeError']);
      const [spin, balloon, exit, escaped] = await Promise.all(
        ['spin', 'balloon', 'exit', 'escape'].map((n) => (n === 'balloon' ? slow : pool).run(n, bytes)),
      );
      expect(spin?.outcome).toBe('hang');
      expect(balloon?.outcome, balloon?.message).toBe('oom');
      expect(exit?.outcome).toBe('crash');
      expect(exit?.message).toContain('code 3');
      expect([escaped?.outcome, escaped?.errorName]).toEqual(['engine', 'RangeError']);
      // the pool replaced the processes it killed and still answers
      expect(await outcome('ok')).toBe('ok');
      expect(pool.started).toBeGreaterThan(2);
      expect(await slow.run('ok', bytes)).toMatchObject({ outcome: 'ok' });
    } finally {
      await Promise.all([pool.close(), slow.close()]);
    }
  });

  it('counts outcomes per campaign and writes a shrunk reproducer with its seed', async () => {
    const outDir = mkdtempSync(path.join(os.tmpdir(), 'fuzz-test-'));
    const pool = createChildPool({ size: 2, registryUrl, timeoutMs: 3000 });
    try {
      const campaign = fixtures.get('needle');
      if (!campaign) throw new Error('fixture');
      const report = await runCampaign({ campaign, seeds: await campaign.seeds({ testdata: '' }), pool, cases: 20, seed: 7, outDir });
      expect(report.counts.engine).toBe(20);
      expect(report.failures).toHaveLength(1);
      const [failure] = report.failures;
      expect(failure?.count).toBe(20);
      const reproducer = readFileSync(failure?.reproducer as string);
      // byte-chunk shrinking got the 256-byte input down to the one byte that matters
      expect([...reproducer]).toEqual([0x2a]);
      const note = JSON.parse(readFileSync(`${failure?.reproducer}.json`, 'utf8'));
      expect(note).toMatchObject({ campaign: 'needle', outcome: 'engine', errorName: 'TypeError', runSeed: 7, seedFile: 'hay.bin' });
      expect(note.replay).toContain('--replay');
    } finally {
      await pool.close();
    }
  });

  it('the command exits 1 on defects, 0 without, and replays a reproducer', async () => {
    const outDir = mkdtempSync(path.join(os.tmpdir(), 'fuzz-cli-'));
    const lines: string[] = [];
    const io = { out: (l: string) => lines.push(l), err: () => {} };
    expect(await fuzzMain(['--campaign', 'ok', '--campaign', 'coded', '--cases', '30', '--out', outDir], registryUrl, io)).toBe(0);
    expect(lines.join('\n')).toMatch(/ok: 30 cases .*ok 30, coded 0, engine 0, hang 0, crash 0, oom 0/);
    expect(lines.join('\n')).toMatch(/coded: 30 cases .*ok 0, coded 30, engine 0/);
    lines.length = 0;
    expect(await fuzzMain(['--campaign', 'spin', '--cases', '2', '--timeout-ms', '1000', '--out', outDir], registryUrl, io)).toBe(1);
    expect(lines.join('\n')).toMatch(/hang 2/);
    const reproducer = path.join(outDir, 'spin', 'hang-x-case0.bin');
    expect(existsSync(reproducer)).toBe(true);
    // a signature listed as known is reported without failing the run
    const known = path.join(outDir, 'known.txt');
    writeFileSync(known, '# a listed defect\nhang|||\nengine|TypeError||gone@tools/x.ts\n');
    lines.length = 0;
    expect(
      await fuzzMain(['--campaign', 'spin', '--cases', '1', '--timeout-ms', '1000', '--out', outDir, '--known', known], registryUrl, io),
    ).toBe(0);
    expect(lines.join('\n')).toMatch(/known defect not seen in this run .*gone@tools\/x\.ts/);
    lines.length = 0;
    expect(await fuzzMain(['--campaign', 'type-error', '--replay', reproducer], registryUrl, io)).toBe(1);
    expect(lines[0]).toMatch(/^engine TypeError/);
  });

  it('generates the same cases from the same seed', () => {
    const seed = new Uint8Array(100).map((_, i) => i * 7);
    const a = Array.from({ length: 50 }, (_, i) => mutateBytes(seed, createRng(i)));
    const b = Array.from({ length: 50 }, (_, i) => mutateBytes(seed, createRng(i)));
    expect(a).toEqual(b);
    expect(new Set(a.map((x) => x.join(','))).size).toBeGreaterThan(40);
  });

  it('mutates protobuf structurally: mutants still decode as protobuf', () => {
    const mnist = new Uint8Array(readFileSync(path.resolve(process.cwd(), '../shared/testdata/models/onnx/mnist.onnx')));
    const tree = parseWire(mnist);
    expect(tree && Buffer.from(encodeWire(tree)).equals(Buffer.from(mnist))).toBe(true);
    const rng = createRng(3);
    let decodes = 0;
    for (let i = 0; i < 50; i++) if (parseWire(mutateWire(mnist, rng))) decodes++;
    expect(decodes).toBe(50);
  });

  it('classifies errors: coded, engine, wrapped engine', () => {
    expect(classifyError(new TypeError('x')).outcome).toBe('engine');
    expect(classifyError('a string').outcome).toBe('engine');
    expect(() => createCampaignRegistry([...fixtures.list(), fixtures.get('ok') as never])).toThrow(/registered twice/);
  });
});
