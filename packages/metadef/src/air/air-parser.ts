import type { Diagnostic } from '../errors/diagnostic.js';
import { diagnostic } from '../errors/tsge-error.js';
import { ge } from '../generated/ge-ir.js';
import { DATA } from '../graph/op-desc.js';
import type { ParserV1 } from '../spi/parser.js';
import { parseAir } from './parse-air.js';

/** Content sniffing decodes at most this many bytes' worth of file (bigger files need the extension). */
const SNIFF_LIMIT = 64 * 1024 * 1024;

/**
 * `.air` files as a `ParserV1`, so model loaders that discover parsers (atc, `@tsge/ge`) read
 * GE IR like any framework file. `inputShapes` overrides the shapes of root `Data` nodes by name.
 */
export const airParser: ParserV1 = {
  specVersion: 'v1',
  name: 'air',
  // GE's atc reads .air models under framework 1 (MindSpore exports them)
  framework: 1,
  extensions: ['.air'],
  sniff(bytes, path) {
    if (path?.toLowerCase().endsWith('.air')) return 0.9;
    // a ModelDef starts with its name (field 1) or its first graph (field 7)
    if (bytes.length === 0 || bytes.length > SNIFF_LIMIT || (bytes[0] !== 0x0a && bytes[0] !== 0x3a)) return 0;
    try {
      const model = ge.proto.ModelDef.decode(bytes);
      return model.graph.some((g) => g.op?.some((op) => op.type === DATA)) ? 0.6 : 0;
    } catch {
      return 0;
    }
  },
  async parse(input, options) {
    const result = parseAir(input.bytes, input.path !== undefined ? { fileName: input.path } : {});
    const diagnostics: Diagnostic[] = [...result.diagnostics];
    const graph = result.graph;
    if (graph && options?.inputShapes) {
      for (const [name, shape] of options.inputShapes) {
        const node = graph.inputNodes().find((n) => n.name === name);
        if (!node) {
          diagnostics.push(diagnostic('TSGE-E7002', { option: 'input_shape', value: name, reason: 'the model has no such input' }));
          continue;
        }
        for (const desc of [...node.opDesc.inputDescs, ...node.opDesc.outputDescs]) {
          desc.shape = [...shape];
          desc.originShape = [...shape];
        }
      }
    }
    if (options?.outputNodes?.length) {
      diagnostics.push(
        diagnostic(
          'TSGE-E2006',
          { format: 'air', reason: 'output node selection is not supported for .air models; the graph keeps its NetOutput' },
          undefined,
          'warning',
        ),
      );
    }
    return { graph, diagnostics };
  },
};
