import type { ParserV1 } from '@tsge/metadef';
import { parseMindsporeAir } from './air/parse-ms-air.js';
import { parseMindir } from './mindir/parse-mindir.js';
import { sniffMindspore } from './sniff.js';

/** `.air` by extension or by a GE ModelDef's first field; anything else is read as MindIR. */
function isAir(bytes: Uint8Array, path: string | undefined): boolean {
  if (path !== undefined) return path.toLowerCase().endsWith('.air');
  return bytes[0] === 0x3a || (bytes[0] === 0x0a && !new TextDecoder().decode(bytes.subarray(0, 64)).includes('MindSpore'));
}

/** The MindSpore parser plugin (GE framework 1): `.mindir` and MindSpore-exported `.air`. */
export const mindsporeParser: ParserV1 = {
  specVersion: 'v1',
  name: 'mindspore',
  framework: 1,
  extensions: ['.mindir', '.air'],
  sniff: sniffMindspore,
  parse: (input, options) => (isAir(input.bytes, input.path) ? parseMindsporeAir(input, options) : parseMindir(input, options)),
};
