// Campaigns whose targets misbehave on purpose, so the harness's tests can check each outcome.
import { TsgeError } from '@tsge/metadef';
import { type FuzzCampaignV1, createCampaignRegistry } from '../campaign.js';
import { mutateBytes, shrinkBytes } from '../mutate/bytes.js';

const campaign = (name: string, run: (bytes: Uint8Array) => Promise<void>, extra: Partial<FuzzCampaignV1> = {}): FuzzCampaignV1 => ({
  specVersion: 'v1',
  name,
  description: `harness test: ${name}`,
  extension: '.bin',
  seeds: async () => [{ name: 'seed.bin', bytes: new Uint8Array(64).map((_, i) => i) }],
  mutate: mutateBytes,
  run,
  ...extra,
});

let keep: unknown[] = [];

export const registry = createCampaignRegistry([
  campaign('ok', async () => {}),
  campaign('coded', async () => {
    throw TsgeError.of('TSGE-E2001', { format: 'test', reason: 'rejected' });
  }),
  campaign('type-error', async (bytes) => {
    const missing = (bytes.length > 1_000_000 ? { x: 1 } : undefined) as { x: number } | undefined;
    void (missing as { x: number }).x;
  }),
  // a catch-all that wraps an engine error in a catalog code is still a defect
  campaign('wrapped', async () => {
    throw TsgeError.of(
      'TSGE-E6007',
      { op: 'Conv', node: 'c', reason: 'Invalid typed array length' },
      undefined,
      new RangeError('Invalid typed array length: -4'),
    );
  }),
  campaign('spin', async () => {
    for (;;) {}
  }),
  campaign('balloon', async () => {
    keep = [];
    for (;;) keep.push(new Float64Array(1 << 20).fill(1));
  }),
  campaign('exit', async () => {
    process.exit(3);
  }),
  campaign('escape', async () => {
    setTimeout(() => {
      throw new RangeError('thrown in a timer');
    }, 0);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }),
  // fails only when the input still holds byte 0x2a at some position: shrinking keeps that byte
  campaign(
    'needle',
    async (bytes) => {
      if (bytes.includes(0x2a)) throw new TypeError('found the needle');
    },
    {
      seeds: async () => [{ name: 'hay.bin', bytes: new Uint8Array(256).map((_, i) => (i === 200 ? 0x2a : 1)) }],
      mutate: (b) => b.slice(),
      shrink: shrinkBytes,
    },
  ),
]);
