import type { Rng } from './rng.js';

/** A real file a campaign mutates. */
export interface FuzzSeed {
  readonly name: string;
  readonly bytes: Uint8Array;
}

export interface SeedContext {
  /** The read-only test data folder (`../shared/testdata` from the repository). */
  readonly testdata: string;
}

/**
 * One fuzzing campaign: which real files it starts from, how it mutates them (in the parent,
 * deterministically) and what it runs on each mutant (in a child process). A reader joins the
 * fuzzer by adding one of these to `campaigns/index.ts`.
 */
export interface FuzzCampaignV1 {
  readonly specVersion: 'v1';
  /** Unique, kebab-case: `--campaign <name>`, and the folder of its reproducers. */
  readonly name: string;
  readonly description: string;
  /** File extension of a reproducer (`.onnx`, `.om`, ...), so it can be opened with the tools. */
  readonly extension: string;
  /** Loads the seeds (parent side, once per run). */
  seeds(context: SeedContext): Promise<readonly FuzzSeed[]>;
  /** One mutation step on a copy of `bytes`; a case applies one to a few steps. */
  mutate(bytes: Uint8Array, rng: Rng): Uint8Array;
  /**
   * Smaller variants of a failing input to try while minimizing (optional; byte-chunk removal is
   * used otherwise). Each candidate is kept only if it fails the same way.
   */
  shrink?(bytes: Uint8Array): Iterable<Uint8Array>;
  /** Runs one input in the child: returning is `ok`, a TsgeError is `coded`, anything else a defect. */
  run(bytes: Uint8Array): Promise<void>;
}

/** Campaigns by name; registering a name twice throws. */
export interface CampaignRegistry {
  get(name: string): FuzzCampaignV1 | undefined;
  list(): readonly FuzzCampaignV1[];
}

export function createCampaignRegistry(campaigns: readonly FuzzCampaignV1[]): CampaignRegistry {
  const byName = new Map<string, FuzzCampaignV1>();
  for (const campaign of campaigns) {
    if (campaign.specVersion !== 'v1') throw new Error(`campaign ${campaign.name}: unknown specVersion ${String(campaign.specVersion)}`);
    if (!/^[a-z0-9][a-z0-9-]*$/.test(campaign.name)) throw new Error(`campaign name ${JSON.stringify(campaign.name)} is not kebab-case`);
    if (byName.has(campaign.name)) throw new Error(`campaign ${campaign.name} is registered twice`);
    byName.set(campaign.name, campaign);
  }
  return { get: (name) => byName.get(name), list: () => [...byName.values()] };
}
