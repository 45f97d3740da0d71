/**
 * A refusal the operator should read (unknown email, balance too low, bad arguments), not a crash.
 * `invalid` means the command was called wrongly; `refused` that it was understood and declined.
 */
export class OperatorError extends Error {
  /** The studio and database that refused, in the operator's words (set by executeOperatorCommand). */
  lookedIn?: string

  constructor(
    message: string,
    readonly kind: 'refused' | 'invalid' = 'refused',
  ) {
    super(message)
    this.name = 'OperatorError'
  }
}
