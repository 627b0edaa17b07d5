/** Reads a string member of a JSON object text, failing the test loudly if it is not there. */
export const stringField = (text: string, key: string): string => {
  const parsed: unknown = JSON.parse(text)
  if (typeof parsed !== "object" || parsed === null) throw new Error(`not a JSON object: ${text}`)
  const value: unknown = Reflect.get(parsed, key)
  if (typeof value !== "string") throw new Error(`no string member ${key} in ${text}`)
  return value
}
