import type { DiagnosticLocation, ErrorCode } from '@tsge/metadef';

/** A problem in the model found while importing one operator; becomes a diagnostic. */
export class ImportProblem extends Error {
  readonly code: ErrorCode;
  readonly args: Readonly<Record<string, unknown>>;
  readonly location: DiagnosticLocation | undefined;

  constructor(code: ErrorCode, args: Readonly<Record<string, unknown>>, location?: DiagnosticLocation) {
    super(String(args.reason ?? code));
    this.code = code;
    this.args = args;
    this.location = location;
  }
}

/** Throws the "malformed operator" problem for an operator. */
export function badOperator(reason: string): never {
  throw new ImportProblem('TSGE-E3403', { reason });
}
