// Every defect `pnpm fuzz` found, regenerated from its campaign, run seed and case index (as
// `pnpm fuzz --campaign C --seed S --case I` writes it) and run in-process: each must now end in
// `ok` or a coded error. The fixes have focused tests of their own next to the code.
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { registry } from './campaigns/index.js';
import { classifyError } from './classify.js';
import { regenerateCase } from './run-campaign.js';

const testdata = path.resolve(process.cwd(), '../shared/testdata');

const FOUND: readonly { campaign: string; seed: number; index: number; was: string }[] = [
  { campaign: 'onnx-run', seed: 1, index: 490, was: 'Resize computeTaps: negative tap count (sizes [-1.25, -1])' },
  { campaign: 'onnx-run', seed: 1, index: 793, was: 'Attention copied past a buffer (K of 6 rows, V of 4096)' },
  { campaign: 'onnx-run', seed: 1, index: 7834, was: 'Concat of int64 and float32 wrote a number into a BigInt64Array' },
  { campaign: 'onnx-run', seed: 1, index: 9801, was: 'LinearAttention with an int64 query wrote NaN into an int64 output' },
  { campaign: 'onnx-run', seed: 1, index: 5827, was: 'Unsqueeze axes declared of length 2^31 built a 2^31-dim unknown shape (hang)' },
  { campaign: 'onnx-run', seed: 1, index: 9369, was: 'GatherND with float32 indices and int64 data reached a BigInt copy' },
  { campaign: 'caffe', seed: 1, index: 17, was: 'prototxt field looked up on the prototype chain (field?.resolve is not a function)' },
  { campaign: 'caffe', seed: 1, index: 2465, was: 'pad 1023 made an InnerProduct weight of 275M values, filled until out of memory' },
  { campaign: 'caffe', seed: 1, index: 3355, was: 'an Input dim of -2^31 reached a typed array length' },
  { campaign: 'mindir', seed: 1, index: 525, was: 'an attribute object taken for a tensor (shape is not iterable)' },
];

describe('defects found by fuzzing stay fixed', () => {
  const seeds = new Map<string, Promise<readonly { name: string; bytes: Uint8Array }[]>>();
  for (const found of FOUND) {
    it(`${found.campaign} seed ${found.seed} case ${found.index}: ${found.was}`, async () => {
      const campaign = registry.get(found.campaign);
      if (!campaign) throw new Error(`no campaign ${found.campaign}`);
      if (!seeds.has(campaign.name)) seeds.set(campaign.name, campaign.seeds({ testdata }));
      const { bytes } = regenerateCase(
        campaign,
        await (seeds.get(campaign.name) as Promise<readonly { name: string; bytes: Uint8Array }[]>),
        found.seed,
        found.index,
      );
      const outcome = await campaign.run(bytes).then(
        () => ({ outcome: 'ok' }),
        (error: unknown) => classifyError(error),
      );
      expect(['ok', 'coded']).toContain(outcome.outcome);
    }, 60_000);
  }
});
