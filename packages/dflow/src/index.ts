// @tsge/dflow: DataFlow (GE's dflow/): graphs of models and user functions joined by queues.
export {
  FlowData,
  FlowNode,
  FlowOutput,
  FlowGraph,
  type FlowEndpoint,
  type FlowDataOptions,
  type FlowNodeOptions,
  type AlignOptions,
  type FlowGraphOptions,
  type CompiledFlow,
} from './graph.js';
export {
  GraphPp,
  FunctionPp,
  FlowGraphPp,
  CountBatch,
  TimeBatch,
  type GraphPpOptions,
  type FunctionPpOptions,
  type FunctionGroup,
  type CountBatchOptions,
  type TimeBatchOptions,
  type ProcessPoint,
} from './process-points.js';
export type { FlowFunctionV1, FlowFunctionExport, ProcFunction, ProcContext, InitContext, ProcResult, JsonValue } from './function.js';
export { type FlowValue, type FlowMessage, type MessageHeader, MAX_USER_DATA_BYTES } from './message.js';
export type { FlowSession, FeedOptions, FetchOptions, SessionDefaults } from './session.js';
export type { NodeStats } from './engine/flow-engine.js';
export { startFlow, type StartFlowOptions, type Placement } from './start-flow.js';
export type {
  FlowSpecV1,
  NodeSpec,
  PointSpec,
  EndpointSpec,
  FlowInputSpec,
  Balance,
  AlignSpec,
  ModelSource,
  FunctionGroupSpec,
} from './spec.js';
export { saveFlowModel, loadFlowModel, type FlowModel, type LoadFlowModelOptions } from './flow-model.js';
export { deployFlow, type DeployFlowOptions, type NatsFlowSession } from './nats/nats-session.js';
export { runAgent, type AgentOptions } from './nats/agent.js';
export type { DeploymentV1 } from './nats/deployment.js';
