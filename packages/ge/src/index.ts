// @tsge/ge: the user-facing API (GE's api/): parse, compile, load, run.
export { initialize, finalize, type GeOptions } from './initialize.js';
export { parseModel, registerParser, listParsers, discoverParsers, type ParseModelOptions } from './parsers.js';
export { buildModel, compileModel, loadModel, type BuildOptions } from './model.js';
export { Session, type SessionOptions } from './session.js';
export { defaultRegistries, type Registries } from './registries.js';
export { type ConfinedReader, MAX_FILE_BYTES, confinedReader, describeFileError, fileError, readRegularFile } from './files.js';
// Flow models (GE model type 3) are read and written here for @tsge/dflow, which sits above ge.
export { writeFlowOm, readFlowOm, type FlowOm, type FlowOmInput, type ReadFlowOmResult } from '@tsge/om';
