/** Where a diagnostic points: any subset of file, graph, node, op type, input/output, option. */
export interface DiagnosticLocation {
  readonly file?: string;
  readonly graph?: string;
  readonly node?: string;
  readonly opType?: string;
  readonly domain?: string;
  readonly input?: string;
  readonly output?: string;
  readonly option?: string;
  readonly offset?: number;
}

export type Severity = 'error' | 'warning' | 'info';

/** A problem in a user's model, input or options. Collected and reported together. */
export interface Diagnostic {
  readonly code: string;
  readonly severity: Severity;
  readonly message: string;
  readonly location?: DiagnosticLocation;
}

/** Formats a diagnostic as one line: `TSGE-E1001 error: message (file x, node y)`. */
export function formatDiagnostic(d: Diagnostic): string {
  const where: string[] = [];
  const loc = d.location;
  if (loc) {
    if (loc.file !== undefined) where.push(`file ${loc.file}`);
    if (loc.graph !== undefined) where.push(`graph ${loc.graph}`);
    if (loc.node !== undefined) where.push(`node ${loc.node}`);
    if (loc.opType !== undefined) where.push(`op ${loc.domain ? `${loc.domain}::` : ''}${loc.opType}`);
    if (loc.input !== undefined) where.push(`input ${loc.input}`);
    if (loc.output !== undefined) where.push(`output ${loc.output}`);
    if (loc.option !== undefined) where.push(`option ${loc.option}`);
    if (loc.offset !== undefined) where.push(`offset ${loc.offset}`);
  }
  return `${d.code} ${d.severity}: ${d.message}${where.length ? ` (${where.join(', ')})` : ''}`;
}

/** Collects diagnostics; passes and parsers report all problems rather than stopping at the first. */
export class DiagnosticBag {
  readonly items: Diagnostic[] = [];
  add(d: Diagnostic): void {
    this.items.push(d);
  }
  get hasErrors(): boolean {
    return this.items.some((d) => d.severity === 'error');
  }
  errors(): Diagnostic[] {
    return this.items.filter((d) => d.severity === 'error');
  }
}
