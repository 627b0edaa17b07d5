/**
 * The statements the SQL client sends while a tracer is in force: it puts each statement's
 * text on its span (`db.query.text`), so a test can count and read them. BEGIN and COMMIT,
 * sent on the connection without a span, are not among them.
 */
import { Tracer } from "effect"

export const statementCounter = (): { readonly tracer: Tracer.Tracer; readonly sent: Array<string> } => {
  const sent: Array<string> = []
  class CountingSpan extends Tracer.NativeSpan {
    override attribute(key: string, value: unknown): void {
      if (key === "db.query.text" && typeof value === "string") sent.push(value)
      super.attribute(key, value)
    }
  }
  return { tracer: Tracer.make({ span: (options) => new CountingSpan(options) }), sent }
}
