/** The last 3 characters of a magic value: what every sandbox table is keyed on. */
export const suffixOf = (value: string): string => value.slice(-3)
