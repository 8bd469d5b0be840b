/** A new tag's colour: picked from a palette by its name, so the same name gets the same colour. */
const palette = ["#4f46e5", "#0891b2", "#059669", "#ca8a04", "#dc2626", "#db2777", "#7c3aed", "#475569"] as const

export const tagColor = (name: string): string => {
  let h = 0
  for (const ch of name.toLowerCase()) h = (h * 31 + (ch.codePointAt(0) ?? 0)) >>> 0
  return palette[h % palette.length] ?? "#475569"
}
