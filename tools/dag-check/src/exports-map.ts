/**
 * Whether a package's `exports` field makes a subpath (`.` or `./x`) importable. Follows Node's rules
 * closely enough for the check: subpath keys, `*` patterns, `null` targets that hide a subpath, and a
 * missing `exports` field that leaves every file reachable.
 */
export function exportsSubpath(exportsField: unknown, subpath: string): boolean {
  if (exportsField === undefined) return true;
  if (exportsField === null) return false;
  if (typeof exportsField === 'string' || Array.isArray(exportsField)) return subpath === '.';
  if (typeof exportsField !== 'object') return false;
  const entries = Object.entries(exportsField as Record<string, unknown>);
  const keys = entries.map(([key]) => key);
  // An object without subpath keys is a conditions object for `.`.
  if (!keys.some((key) => key.startsWith('.'))) return subpath === '.';
  const exact = entries.find(([key]) => key === subpath);
  if (exact) return exact[1] !== null;
  let best: { prefix: string; target: unknown } | undefined;
  for (const [key, target] of entries) {
    const star = key.indexOf('*');
    if (star < 0) continue;
    const prefix = key.slice(0, star);
    const suffix = key.slice(star + 1);
    if (subpath.startsWith(prefix) && subpath.endsWith(suffix) && subpath.length >= key.length - 1) {
      if (!best || prefix.length > best.prefix.length) best = { prefix, target };
    }
  }
  return best !== undefined && best.target !== null;
}
