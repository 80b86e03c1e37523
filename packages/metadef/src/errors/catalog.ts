/**
 * The one catalog of diagnostic codes. Ranges:
 * E1xxx IR and verifier, E2xxx serialization (.air, .om), E3xxx parsers, E4xxx ops and shape
 * inference, E5xxx compiler, E6xxx runtime and executor, E7xxx CLI and options, E8xxx adapters/dflow.
 * Message templates use `{name}` placeholders filled by `diagnostic()`.
 */
export const ErrorCatalog = {
  // IR / verifier
  'TSGE-E1001': 'node {node}: input {index} is linked to an anchor that does not link back',
  'TSGE-E1002': 'node {node}: output {index} lists a peer that does not link back',
  'TSGE-E1003': 'the graph has a cycle through nodes {nodes}',
  'TSGE-E1004': 'node name {node} is used more than once',
  'TSGE-E1005': 'node {node}: required input {index} is not connected',
  'TSGE-E1006': 'node {node}: edge from {producer} crosses graphs',
  'TSGE-E1007': 'the graph has {count} NetOutput nodes; exactly one is required',
  'TSGE-E1008': 'Data node {node} has a missing or duplicate index {index}',
  'TSGE-E1009': 'node {node}: input {index} has dtype {actual} but its producer gives {expected}',
  'TSGE-E1010': 'node {node}: output {index} shape {actual} disagrees with inference {expected}',
  'TSGE-E1011': 'node {node}: subgraph {subgraph} is not owned by the root graph',
  'TSGE-E1012': 'subgraph {subgraph}: Data node {node} has _parent_node_index {index} outside the parent inputs',
  'TSGE-E1013': 'Const node {node} has no tensor in attribute value, or it disagrees with its output desc',
  'TSGE-E1014': 'node {node}: control edge anchor is inconsistent',
  'TSGE-E1015': 'node {node}: op {op} is not registered',
  'TSGE-E1016': 'node {node}: attribute {attr}: {reason}',
  'TSGE-E1017': 'node {node} has {actual} {what}, but its op allows {expected}',
  'TSGE-E1018': 'node {node}: output desc count {actual} differs from output anchors {expected}',
  'TSGE-E1019': 'node {node}: subgraph {subgraph} has parent {actual}, expected {expected}',
  'TSGE-E1020': 'node {node}: subgraph {subgraph} does not exist',
  'TSGE-E1021': 'node {node} is listed in graph {expected} but points to graph {actual}',
  'TSGE-E1022': 'subgraph {subgraph} has the name of the root graph',
  'TSGE-E1099': '{message}',
  // serialization
  'TSGE-E2001': 'not a valid {format} file: {reason}',
  'TSGE-E2002': 'unsupported {format} version {version}; this reader knows {known}',
  'TSGE-E2003': '{format} file is truncated: {reason}',
  'TSGE-E2004': '{format}: {what} {actual} exceeds the limit {limit}',
  'TSGE-E2005': '{format}: checksum mismatch (stored {stored}, computed {computed})',
  'TSGE-E2006': '{format}: {reason}',
  // .air reader (E21xx)
  'TSGE-E2101': 'node {node}: input {index} names unknown producer {producer}',
  'TSGE-E2102': 'node {node}: input {index} reads output {output} of {producer}, which has {count} outputs',
  'TSGE-E2103': 'node name {node} is used more than once in graph {graph}',
  'TSGE-E2104': 'tensor in {where} has {actual} data bytes; dtype {dtype} with dims {dims} needs {expected}',
  'TSGE-E2105': '{where} has data type {dtype}, which tsge does not support',
  'TSGE-E2106': 'subgraph {subgraph} has no parent node ({reason})',
  'TSGE-E2107': 'node {node} calls subgraph {subgraph}, which the file does not contain',
  'TSGE-E2108': 'malformed {where}: {reason}',
  'TSGE-E2109': 'graph name {graph} is used more than once',
  // parsers
  'TSGE-E3001': 'cannot read model file: {reason}',
  'TSGE-E3002': 'unsupported op {op} (domain {domain}, opset {opset})',
  'TSGE-E3003': 'malformed model: {reason}',
  'TSGE-E3004': 'external data path {path} escapes the model folder',
  'TSGE-E3005': 'no parser recognises this file: {reason}',
  'TSGE-E3006': 'unsupported opset {opset} for domain {domain}',
  // side files of untrusted models (issue 11)
  'TSGE-E3050': 'side file {path} of the model cannot be read: {reason}',
  // TFLite parser (@tsge/parser-tflite), E3401..E3449
  'TSGE-E3401': 'not a valid TFLite flatbuffer: {reason}',
  'TSGE-E3402': 'unsupported TFLite operator {op} (version {version})',
  'TSGE-E3403': 'malformed TFLite operator: {reason}',
  'TSGE-E3404': 'unsupported TFLite tensor {tensor}: {reason}',
  'TSGE-E3405': 'TFLite operator {op} needs a constant {what}',
  'TSGE-E3406': 'unsupported TFLite model feature: {reason}',
  // safetensors reader (examples/llm), E3500..E3520
  'TSGE-E3501': 'not a valid safetensors file {file}: {reason}',
  'TSGE-E3502': 'safetensors {file}: tensor {tensor}: {reason}',
  // LLM example (examples/llm), E4150..E4179
  'TSGE-E4150': 'model file {file}: {reason}',
  'TSGE-E4151': 'checkpoint {file}: weight {tensor}: {reason}',
  'TSGE-E4152': 'option {option}: {reason}',
  // device tensors and bound outputs (in-place KV cache), E4153..E4175
  'TSGE-E4153': 'device tensor {what}: {reason}',
  'TSGE-E4154': 'output {output} is bound to a device tensor of {bound}; the run produces {actual}',
  'TSGE-E4155': "RunOptions.outputs names unknown output {output}; the model's outputs are {expected}",
  'TSGE-E4156': 'ONNX export of {what}: {reason}',
  'TSGE-E4157': '{command} option {option}: {reason}',
  // Caffe parser (@tsge/parser-caffe), E3201..E3249
  'TSGE-E3201': 'prototxt line {line}, column {column}: {reason}',
  'TSGE-E3202': 'not a Caffe {what}: {reason}',
  'TSGE-E3203': 'layer {layer}: unsupported layer type {type}',
  'TSGE-E3204': 'layer {layer}: bottom {blob} is not produced by any earlier layer or input',
  'TSGE-E3205': 'layer {layer} ({type}): {reason}',
  'TSGE-E3206': 'layer {layer} ({type}) needs {expected} weight blobs; {reason}',
  'TSGE-E3207': 'layer {layer}: blob {index} has {actual} values; its shape {shape} needs {expected}',
  'TSGE-E3208':
    'the prototxt has learned layers ({layers}) but no weights: pass a .caffemodel (--weight) or ask for initialised weights explicitly (initializeWeights)',
  'TSGE-E3209': 'input {input}: {reason}',
  'TSGE-E3210': 'prototxt field {field} is not a field of {message}; it is skipped',
  'TSGE-E3211': 'the caffemodel has no layer {layer}; the prototxt names it',
  'TSGE-E3212': 'layer {layer} ({type}): shape {shape} is not supported: {reason}',
  'TSGE-E3213': 'prototxt {what} {actual} exceeds the limit {limit}',
  // MindSpore parser (@tsge/parser-mindspore), E3301..E3339
  'TSGE-E3301': 'not a MindIR file: {reason}',
  'TSGE-E3302':
    'the MindIR file is encrypted ({reason}); decrypt it with MindSpore (mindspore.load with dec_key) and export it unencrypted',
  'TSGE-E3303': 'MindIR node {node}: unsupported primitive {op}',
  'TSGE-E3304': 'MindIR node {node} ({op}): {reason}',
  'TSGE-E3305': 'MindIR parameter {parameter}: {reason}',
  'TSGE-E3306': 'MindIR tensor {tensor}: unsupported data type {dtype}',
  'TSGE-E3307': 'MindIR node {node}: input {input} is not defined',
  'TSGE-E3308': 'MindIR {what} {actual} exceeds the limit {limit}',
  'TSGE-E3309': 'GE op {op} at node {node} has no canonical mapping',
  'TSGE-E3310': 'GE node {node} ({op}): {reason}',
  'TSGE-E3311':
    'MindIR node {node}: control flow ({construct}) is not supported; export the network as one graph without Switch/Partial/call (if/while on constants, or unrolled)',
  // TensorFlow parser: GraphDef .pb/.pbtxt, SavedModel + checkpoint, TensorFlow.js model.json (E3101-E3149)
  'TSGE-E3101': 'malformed {format}: {reason}',
  'TSGE-E3102': 'unsupported TensorFlow ops ({count} types): {ops}',
  'TSGE-E3103': 'cannot convert TensorFlow node {node} ({op}): {reason}',
  'TSGE-E3104': 'node {node} reads {input}, which no node produces',
  'TSGE-E3105': 'tensor {tensor}: {reason}',
  'TSGE-E3106': '{format}: {what} {actual} exceeds the limit {limit}',
  'TSGE-E3107': 'the graph has a cycle through node {node} outside a while-loop frame',
  'TSGE-E3108': 'TensorFlow.js weights manifest: {reason}',
  'TSGE-E3109': 'SavedModel has no signature {signature}; it has: {available}',
  'TSGE-E3110': 'SavedModel variables checkpoint: {reason}',
  'TSGE-E3111': 'SavedModel variables checkpoint block uses {compression} compression, which this reader does not support',
  'TSGE-E3112': 'TensorFlow.js layers model: {reason}',
  'TSGE-E3113': '--input_shape names {input}, which is not a Placeholder of the graph; inputs: {inputs}',
  'TSGE-E3114': '--out_nodes names {output}, which is not a node output of the graph',
  // TensorFlow SavedModel functions and variables (E3120-E3160)
  'TSGE-E3120': 'SavedModel function {function} (at node {node}): {reason}',
  'TSGE-E3121': 'SavedModel variable {node} has no value: {reason}',
  'TSGE-E3122': 'SavedModel signature {signature}: {reason}',
  'TSGE-E3123': 'TensorFlow while loop {frame}: {reason}',
  // ops / inference
  'TSGE-E4001': 'shape inference failed: {reason}',
  'TSGE-E4002': 'input {index} has dtype {actual}; allowed: {expected}',
  'TSGE-E4003': 'kernel failed: {reason}',
  'TSGE-E4004': 'no kernel for op {op} with dtype {dtype}',
  'TSGE-E4005': 'op {op} is already registered',
  // compiler
  'TSGE-E5001': 'pass {pass} failed: {reason}',
  'TSGE-E5002': 'unknown pass {pass} in optimization switch',
  'TSGE-E5003': 'memory plan invalid: {reason}',
  'TSGE-E5004': 'output node {node} not found',
  'TSGE-E5005': 'input shape option is invalid: {reason}',
  // runtime / executor
  'TSGE-E6001': 'input {input} is missing',
  'TSGE-E6002': 'unknown input {input}; the model has inputs {expected}',
  'TSGE-E6003': 'input {input} has dtype {actual}; expected {expected}',
  'TSGE-E6004': 'input {input} has shape {actual}; expected {expected}',
  'TSGE-E6005': 'the model needs {needed} bytes of device memory; the limit is {limit}',
  'TSGE-E6006': 'the executor was released',
  'TSGE-E6007': 'kernel {op} failed at node {node}: {reason}',
  'TSGE-E6008': 'no gear matches the input shapes {actual}; gears are {expected}',
  'TSGE-E6009': 'worker thread {worker} failed: {reason}',
  // robustness of feeds (issue 11)
  'TSGE-E6050': 'input {input} is not a valid tensor: {reason}',
  'TSGE-E6051': 'input {input} with dims {dims} needs {bytes} bytes, more than the device memory limit of {limit} bytes',
  // executor safety: model WebAssembly opt-in and run deadlines (issue 11)
  'TSGE-E6080': 'the run did not finish within {timeoutMs} ms ({where}); it was stopped and the model can run again',
  'TSGE-E6081':
    'the model carries {count} WebAssembly module(s) in its KERNELS partition ({names}); they are compiled only when you opt in: loadModel(file, { allowModelWasm: true }) or tsge-run --allow-model-wasm',
  // kernel libraries and devices (issue 10: KernelLibraryV1, DeviceV1)
  'TSGE-E6200': 'option {option}: unknown device {value}; the registered devices are {devices}',
  'TSGE-E6201': 'device {device} cannot run here: {reason}',
  'TSGE-E6202':
    'node {node}: kernel {kernel} of the model (target {target}) does not run on device {device}, and {reason}; compile for a target the device runs',
  'TSGE-E6203': 'node {node} ({op}): {reason}',
  // run-time arenas of dynamic runs on workers (issue 10)
  'TSGE-E6210':
    'node {node}: output {output} needs {needed} bytes more than the run-time arena of worker {worker} holds ({bytes} bytes in all); raise LoadModelOptions.runtimeArenaBytes (or maxMemoryBytes)',
  'TSGE-E6211':
    'the run-time arenas ({workers} x {bytes} bytes) do not fit device memory beside the model ({needed} bytes, limit {limit}); lower LoadModelOptions.runtimeArenaBytes or raise maxMemoryBytes',
  'TSGE-E6101': 'kernel module {module} does not export a kernelLibrary (a KernelLibraryV1 with specVersion v1, kernels and tiles)',
  'TSGE-E6102': 'no loaded kernel library has the tile function {tile}',
  // front door (@tsge/ge InferenceSession and its compile cache)
  'TSGE-E6150': "fetches name unknown output {output}; the model's outputs are {expected}",
  'TSGE-E6151': 'session option {option}: {reason}',
  'TSGE-E6152': 'compile cache {directory}: {reason}',
  'TSGE-E6153': 'the session was released',
  // CLI / options
  'TSGE-E7001': 'unknown option {option}',
  'TSGE-E7002': 'option {option} has an invalid value {value}: {reason}',
  'TSGE-E7003': 'file not found: {path}',
  'TSGE-E7004': 'missing required option {option}',
  // file-system errors of the commands (issue 11)
  'TSGE-E7050': 'cannot {action} {path}: {reason}',
  // CLI deadlines (issue 11)
  'TSGE-E7070': '{tool}: {what} did not finish within {timeoutMs} ms (--timeout)',
  // weights stored narrow and precision modes (issue 13)
  'TSGE-E7120': '{format}: the weight storage table of TASK_INFO is invalid: {reason}',
  'TSGE-E7121': 'precision mode {mode} is not supported for target {target}: {reason}',
  // generated kernels: descriptions in the KERNELS partition (issue 13)
  'TSGE-E7100': 'kernel description {kernel} is malformed: {reason}',
  'TSGE-E7101': 'kernel description {kernel} is out of range: {reason}',
  'TSGE-E7102': 'node {node}: generated kernel {kernel} is not in the model ({count} kernel descriptions)',
  'TSGE-E7103': 'node {node}: generated kernel {kernel} does not match its task: {reason}',
  'TSGE-E7104': 'kernel description {kernel} does not fit its kind: {reason}',
  'TSGE-E7105': 'node {node}: generated kernel {kernel} reduces rows, which an epilogue cannot run',
  // kernel plans recorded by the compiler on nodes (issue 13)
  'TSGE-E7106': 'node {node}: the compiled {plan} plan does not fit its task: {reason}',
  // adapters / dflow
  'TSGE-E8001': '{message}',
  // dflow (@tsge/dflow): flow graphs, sessions, flow models, deployment
  'TSGE-E8101': 'flow graph {graph} is invalid: {reason}',
  'TSGE-E8102': 'flow node {node}: {reason}',
  'TSGE-E8103': 'feed input {input}: {reason}',
  'TSGE-E8104': 'feed rejected: the queue of input {input} is full ({depth} messages)',
  'TSGE-E8105': 'feed timed out after {timeoutMs} ms waiting for room on input {input}',
  'TSGE-E8106': 'fetch timed out after {timeoutMs} ms on output {output}',
  'TSGE-E8107': 'the flow session is closed',
  'TSGE-E8108': 'node {node} failed on transaction {transactionId}: {reason}',
  'TSGE-E8109': 'node {node}: the inputs of transaction {transactionId} were not aligned within {timeoutMs} ms',
  'TSGE-E8110': 'function {module}#{export} cannot be loaded: {reason}',
  'TSGE-E8111': 'flow model {file} is invalid: {reason}',
  'TSGE-E8112': 'flow option {option} is invalid: {reason}',
  'TSGE-E8113': 'deployment {file} is invalid: {reason}',
  'TSGE-E8114': 'NATS JetStream: {reason}',
  'TSGE-E8115': 'the {where} running node {node} failed: {reason}',
  'TSGE-E8116': 'node {node} cannot be deployed: {reason}',
  // onnxruntime adapter (@tsge/adapter-onnxruntime)
  'TSGE-E8201': 'session option {option} is not supported by tsge: {reason}',
  'TSGE-E8202': 'session option {option} has an invalid value {value}: {reason}',
  'TSGE-E8203': 'run option {option}: {reason}',
  'TSGE-E8204': 'input {input}: {reason}',
  'TSGE-E8205': 'preallocated output {output}: {reason}',
  'TSGE-E8206': 'output {output}: {reason}',
  'TSGE-E8207': 'Session already disposed (the session was released)',
  'TSGE-E8208': 'profiling: {reason}',
  // TensorFlow.js adapter (@tsge/adapter-tfjs); messages keep tfjs's words where users search for them
  'TSGE-E8302': 'model source {source}: {reason}',
  'TSGE-E8303': 'the model artifacts are unusable: {reason}',
  'TSGE-E8304': 'load option {option}: {reason}',
  'TSGE-E8305': 'The dict provided in model.execute(dict) has keys: [{keys}] that are not part of graph',
  'TSGE-E8306': 'Input tensor count mismatch, the model has {expected} inputs, while there are {given} input tensors provided.',
  'TSGE-E8307': 'Cannot compute the outputs [{outputs}] from the provided inputs [{inputs}]. Missing the following inputs: [{missing}]',
  'TSGE-E8308':
    "The output '{output}' is not found in the graph (the model's outputs are [{outputs}]; a graph model's nodes can be fetched too, as node or node:index)",
  'TSGE-E8309': 'input {input}: {reason}',
  'TSGE-E8310': 'output {output}: {reason}',
  'TSGE-E8311': 'the model was disposed (dispose() was called); load it again to run it',
  // Executor.runSync, which the adapter's synchronous execute/predict use
  'TSGE-E8312':
    'runSync: all {slots} run arenas are in use by asynchronous runs; a synchronous run cannot wait for one (await them first, or load with a larger maxConcurrentRuns)',
  'TSGE-E8313':
    'outputs [{outputs}] are intermediate nodes: tsge compiles the model for each such set of outputs, which only the asynchronous forms do. Call await model.executeAsync(inputs, outputs) once for this set; then execute() runs it synchronously',
} as const;

export type ErrorCode = keyof typeof ErrorCatalog;

/** Fills a catalog template; unknown placeholders stay visible so a missing argument is noticed. */
export function formatMessage(code: ErrorCode, args: Readonly<Record<string, unknown>> = {}): string {
  return ErrorCatalog[code].replace(/\{(\w+)\}/g, (whole, key: string) => (key in args ? String(args[key]) : whole));
}
