// Functions of `pnpm bench:dflow`.
import type { FlowFunctionV1 } from '@tsge/dflow';

/** Sends its input on: what is left of a hop is the flow's own overhead. */
export const identity: FlowFunctionV1 = { specVersion: 'v1', proc: (inputs) => inputs };
