import { TsgeError } from '@tsge/metadef';
import type { FlowSpecV1 } from '../spec.js';
import { groupAligningOnOneInstance } from './topology.js';

/** Which node runs on which host, how many instances: GE's deploy info, as a JSON file. */
export interface DeploymentV1 {
  readonly version: 1;
  /** Names the streams, consumers and keys of this deployment ([A-Za-z0-9_-], at most 64). */
  readonly name: string;
  /** The flow model (`.om`), relative to the deployment file. */
  readonly model: string;
  readonly placement: readonly { readonly node: string; readonly host: string; readonly instances?: number }[];
  /** How long a host may hold a message unacknowledged before JetStream redelivers it (default 30000). */
  readonly ackWaitMs?: number;
  /** Deliveries of one message before JetStream gives up on it (default 20). */
  readonly maxDeliver?: number;
  /** Messages each edge stream holds before publishers wait (max_msgs + discard new; default: the node's queueDepth). */
  readonly maxMessages?: number;
}

const NAME = /^[A-Za-z0-9_-]{1,64}$/;

/** Checks a deployment against the flow it places; throws TSGE-E8113 naming the file. */
export function checkDeployment(value: unknown, spec: FlowSpecV1 | undefined, file: string): DeploymentV1 {
  const fail = (reason: string): never => {
    throw TsgeError.of('TSGE-E8113', { file, reason }, { file });
  };
  if (typeof value !== 'object' || value === null) fail('it is not a JSON object');
  const d = value as Partial<DeploymentV1>;
  if (d.version !== 1) fail(`unknown version ${String(d.version)} (known: 1)`);
  if (typeof d.name !== 'string' || !NAME.test(d.name)) fail('name must be 1 to 64 of [A-Za-z0-9_-]');
  if (typeof d.model !== 'string' || d.model === '') fail('model must name the flow model file');
  if (!Array.isArray(d.placement) || d.placement.length === 0) fail('placement must list nodes and hosts');
  for (const [key, max] of [
    ['ackWaitMs', 3_600_000],
    ['maxDeliver', 1000],
    ['maxMessages', 1 << 24],
  ] as const) {
    const v = d[key];
    if (v !== undefined && !(Number.isSafeInteger(v) && v > 0 && v <= max)) fail(`${key} must be an integer from 1 to ${max}`);
  }
  for (const [i, p] of (d.placement as DeploymentV1['placement']).entries()) {
    if (typeof p !== 'object' || p === null || typeof p.node !== 'string') fail(`placement ${i} has no node`);
    if (typeof p.host !== 'string' || !NAME.test(p.host)) fail(`placement ${i}: host must be 1 to 64 of [A-Za-z0-9_-]`);
    if (p.instances !== undefined && !(Number.isSafeInteger(p.instances) && p.instances > 0 && p.instances <= 256))
      fail(`placement ${i}: bad instances`);
  }
  if (spec) {
    for (const node of spec.nodes) {
      const entries = (d.placement as DeploymentV1['placement']).filter((p) => p.node === node.name);
      if (entries.length === 0) fail(`node ${node.name} is not placed on any host`);
      const instances = entries.reduce((n, p) => n + (p.instances ?? 1), 0);
      const aligning = instances > 1 ? groupAligningOnOneInstance(node) : undefined;
      if (aligning)
        fail(
          `node ${node.name} is placed as ${instances} instances, but its function ${aligning.name ?? '(unnamed)'} aligns point inputs ${aligning.inputs.join(', ')} ` +
            'while other functions of the point take other inputs: over NATS such a group aligns on one consumer per input, which only one instance can do ' +
            '(give the node one instance, or split the point into one node per function)',
        );
    }
    for (const p of d.placement as DeploymentV1['placement'])
      if (!spec.nodes.some((n) => n.name === p.node)) fail(`placement names node ${p.node}, which the flow does not have`);
  }
  return d as DeploymentV1;
}
