import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export interface PackedPackage {
  readonly name: string;
  readonly tarball: string;
}

/**
 * A project outside the workspace whose only tsge packages are the tarballs (pnpm `overrides`
 * point every @tsge dependency, also transitive ones, at its tarball); third-party dependencies
 * come from the npm registry.
 */
export function createScratchProject(
  directory: string,
  packed: readonly PackedPackage[],
  extraDependencies: Readonly<Record<string, string>>,
): void {
  mkdirSync(directory, { recursive: true });
  const tarballs = Object.fromEntries(packed.map((p) => [p.name, `file:${p.tarball}`]));
  const manifest = {
    name: 'tsge-pack-check-scratch',
    private: true,
    type: 'module',
    dependencies: { ...tarballs, ...extraDependencies },
    pnpm: { overrides: tarballs },
  };
  writeFileSync(path.join(directory, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  copyFileSync(new URL('../scratch/run-models.mjs', import.meta.url), path.join(directory, 'run-models.mjs'));
}

/** Runs a command, returning stdout; throws with its output when it fails. */
export function run(command: string, args: readonly string[], cwd: string, inherit = false): string {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', stdio: inherit ? 'inherit' : 'pipe', env: scrubbedEnvironment() });
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} (in ${cwd}) failed with ${result.status ?? result.signal}\n${result.stdout ?? ''}${result.stderr ?? ''}`,
    );
  }
  return result.stdout ?? '';
}

// The workspace's pnpm passes its settings down as npm_config_* variables; the scratch project
// must see none of them (no workspace root, no link-workspace-packages).
function scrubbedEnvironment(): NodeJS.ProcessEnv {
  const environment: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) if (!/^npm_|^PNPM_|^pnpm_/i.test(key)) environment[key] = value;
  return environment;
}
