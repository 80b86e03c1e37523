import protobuf from 'protobufjs/minimal.js';
import { isEncryptedMindir } from './mindir/parse-mindir.js';

/** MindIR ModelProto: ir_version (1), producer_name (2) ... as length-delimited strings first. */
function looksLikeMindir(bytes: Uint8Array): boolean {
  try {
    const reader = protobuf.Reader.create(bytes);
    let sawProducer = false;
    for (let fields = 0; reader.pos < bytes.length && fields < 6; fields++) {
      const tag = reader.uint32();
      const field = tag >>> 3;
      const wire = tag & 7;
      if (field >= 1 && field <= 9 && wire !== 2) return false;
      if (field === 2) {
        const length = reader.uint32();
        const text = new TextDecoder().decode(bytes.subarray(reader.pos, reader.pos + Math.min(length, 64)));
        reader.pos += length;
        sawProducer ||= text === 'MindSpore';
        continue;
      }
      reader.skipType(wire);
    }
    return sawProducer;
  } catch {
    return false;
  }
}

/** Confidence that bytes are a MindIR file (encrypted ones too, so they get the right error) or a `.air`. */
export function sniffMindspore(bytes: Uint8Array, path?: string): number {
  const lower = path?.toLowerCase() ?? '';
  if (lower.endsWith('.air')) return 0.95;
  const byExtension = lower.endsWith('.mindir');
  if (isEncryptedMindir(bytes)) return byExtension ? 0.95 : 0.5;
  if (looksLikeMindir(bytes)) return byExtension ? 0.95 : 0.8;
  return byExtension ? 0.3 : 0;
}
