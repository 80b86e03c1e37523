// tsc does not emit the generated JavaScript module; copy it beside the compiled code.
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
mkdirSync(path.join(root, 'dist', 'generated'), { recursive: true });
for (const name of ['tensorflow.js', 'tensorflow.d.ts', 'tensorflow-descriptor.js', 'tensorflow-descriptor.d.ts'])
  copyFileSync(path.join(root, 'src', 'generated', name), path.join(root, 'dist', 'generated', name));
