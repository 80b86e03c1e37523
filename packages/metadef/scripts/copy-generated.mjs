#!/usr/bin/env node
// tsc does not emit the generated protobufjs JavaScript: copy it (and its types) into dist.
import { copyFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const packageDir = join(dirname(fileURLToPath(import.meta.url)), '..');
const target = join(packageDir, 'dist', 'generated');
mkdirSync(target, { recursive: true });
for (const file of ['ge-ir.js', 'ge-ir.d.ts']) copyFileSync(join(packageDir, 'src', 'generated', file), join(target, file));
