/**
 * The size of a picture of `width`×`height` scaled to fit inside `maxWidth`×`maxHeight`,
 * aspect kept, never enlarged. `even` rounds both sides down to even numbers, as H.264
 * with 4:2:0 chroma needs.
 */
export const fitInside = (width: number, height: number, maxWidth: number, maxHeight: number, even = false): { width: number; height: number } => {
  const scale = Math.min(1, maxWidth / width, maxHeight / height)
  const round = (n: number) => (even ? Math.max(2, Math.floor(n / 2) * 2) : Math.max(1, Math.round(n)))
  return { width: round(width * scale), height: round(height * scale) }
}
