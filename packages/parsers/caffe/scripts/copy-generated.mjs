// tsc does not emit the generated JavaScript modules; copy them beside the compiled code.
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
mkdirSync(path.join(root, 'dist', 'generated'), { recursive: true });
for (const name of ['caffe.js', 'caffe.d.ts', 'caffe-schema.js', 'caffe-schema.d.ts'])
  copyFileSync(path.join(root, 'src', 'generated', name), path.join(root, 'dist', 'generated', name));
