import type { GraphPassV1, PassStage } from '@tsge/metadef';

/** Custom passes of one stage, in the order given (a pass without a stage runs after graph optimization). */
export function customPassesAt(passes: readonly GraphPassV1[] | undefined, stage: PassStage): GraphPassV1[] {
  return (passes ?? []).filter((p) => (p.stage ?? 'after-graph-optimize') === stage);
}
