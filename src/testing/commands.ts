/**
 * What the model-based command sets share: the client they reach an API through, and the
 * wrapper that compares the model with the API after every command.
 */
import type fc from "fast-check"

/** The least a client must do: send JSON (with optional headers), get the status and parsed body back. */
export interface JsonApiClient {
  readonly call: (
    method: string,
    path: string,
    body?: unknown,
    headers?: Readonly<Record<string, string>>
  ) => Promise<{ readonly status: number; readonly body: unknown }>
}

/** Wraps a command so that the API and the model are compared (`agree`) after it. */
export class CheckedCommand<Model extends object, Real> implements fc.AsyncCommand<Model, Real> {
  constructor(readonly inner: fc.AsyncCommand<Model, Real>, readonly agree: (m: Model, real: Real) => Promise<void>) {}
  check = (m: Readonly<Model>) => this.inner.check(m)
  async run(m: Model, real: Real) {
    await this.inner.run(m, real)
    await this.agree(m, real)
  }
  toString = () => this.inner.toString()
}
