// A prototxt's field and enum names index the schema's own keys only: `constructor`, `__proto__`
// and `toString` are unknown names (a warning, or a coded error for an enum), never Object's
// members (found by `pnpm fuzz --campaign caffe`, issue 11).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCaffe } from '../parse-caffe.js';

const lenet = readFileSync(path.resolve(process.cwd(), '../shared/testdata/models/caffe/lenet/lenet.prototxt'), 'utf8');

describe('prototxt names are own keys of the schema', () => {
  for (const name of ['constructor', '__proto__', 'toString', 'hasOwnProperty']) {
    it(`a field named ${name} is an unknown field, not a TypeError`, async () => {
      const text = lenet.replace('name: "LeNet"', `name: "LeNet"\n${name} { x: 1 }`);
      const result = await parseCaffe({ bytes: new TextEncoder().encode(text), path: 'lenet.prototxt' });
      for (const d of result.diagnostics) expect(d.message).not.toMatch(/TypeError|is not a function/);
      expect(result.diagnostics.some((d) => d.message.includes(name))).toBe(true);
    });

    it(`an enum value ${name} is a coded error`, async () => {
      const text = lenet.replace(/pool: MAX/, `pool: ${name}`);
      expect(text).not.toBe(lenet);
      const result = await parseCaffe({ bytes: new TextEncoder().encode(text), path: 'lenet.prototxt' });
      expect(result.graph).toBeUndefined();
      expect(result.diagnostics[0]?.code).toBe('TSGE-E3201');
      expect(result.diagnostics[0]?.message).toContain(`${name} is not a value of enum`);
    });
  }
});
