import { type Diagnostic, type DiagnosticLocation, type ErrorCode, TsgeError, diagnostic } from '@tsge/metadef';

/**
 * Thrown inside the parser for one problem in the model; caught at node/tensor boundaries and
 * turned into a diagnostic so the parser can keep going and report everything at once.
 */
export class OnnxProblem extends Error {
  readonly code: ErrorCode;
  readonly args: Readonly<Record<string, unknown>>;
  constructor(code: ErrorCode, args: Readonly<Record<string, unknown>>) {
    super(`${code}: ${JSON.stringify(args)}`);
    this.name = 'OnnxProblem';
    this.code = code;
    this.args = args;
  }
  toDiagnostic(location?: DiagnosticLocation): Diagnostic {
    return diagnostic(this.code, this.args, location);
  }
}

export function malformed(reason: string): OnnxProblem {
  return new OnnxProblem('TSGE-E3003', { reason });
}

/** Any thrown value as a diagnostic: our problems keep their code, anything else is malformed input. */
export function problemToDiagnostic(error: unknown, location?: DiagnosticLocation): Diagnostic {
  if (error instanceof OnnxProblem) return error.toDiagnostic(location);
  // a coded error of the host (its side-file reader) keeps its code and message
  const first = TsgeError.isInstance(error) ? error.diagnostics[0] : undefined;
  if (first) return first.location || !location ? first : { ...first, location };
  const reason = error instanceof Error ? error.message : String(error);
  return diagnostic('TSGE-E3003', { reason }, location);
}
