import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Graph } from '@tsge/metadef';
import { TsgeError, graphToDot, graphToJson, serializeAir } from '@tsge/metadef';

/** Writes `<dir>/<seq>-<pass>.{air,json,dot}` after a pass when `dumpGraphAfter` names it or is 'all'. */
export function graphDumper(which: string | undefined, dir: string | undefined): ((graph: Graph, pass: string) => void) | undefined {
  if (!which) return undefined;
  const folder = dir ?? '.';
  let seq = 0;
  return (graph, pass) => {
    if (which !== 'all' && which !== pass) return;
    const base = join(folder, `${String(++seq).padStart(2, '0')}-${pass.replace(/[^\w.-]/g, '_')}`);
    try {
      mkdirSync(folder, { recursive: true });
      writeFileSync(`${base}.air`, serializeAir(graph, { modelName: graph.name }));
      writeFileSync(`${base}.json`, JSON.stringify(graphToJson(graph), null, 2));
      writeFileSync(`${base}.dot`, graphToDot(graph));
    } catch (error) {
      // a dump folder under a regular file, no permission, a full disk: the user's to fix
      const reason = error instanceof Error ? error.message : String(error);
      throw TsgeError.of(
        'TSGE-E7050',
        { action: 'write the graph dump', path: folder, reason },
        { file: folder, option: 'dump_dir' },
        error,
      );
    }
  };
}
