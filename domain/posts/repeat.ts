/**
 * Repeat posting (spec: POST /posts `inter` / `repeatDays`, 1 to 365 days; Whole post
 * `repeatDays`). After an occurrence publishes, the next one is made for the same channels
 * `repeatDays` after the occurrence's own time, so the series keeps its time of day and
 * does not drift with how late one occurrence went out. An occurrence that went out so late
 * that its successor's time has passed skips ahead to the first time still to come: a
 * repeat never publishes in a burst to catch up.
 */

const DAY_MS = 86_400_000

export const nextOccurrenceAt = (publishAt: Date, repeatDays: number, now: Date): Date => {
  const period = repeatDays * DAY_MS
  const elapsed = now.getTime() - publishAt.getTime()
  const periods = Math.max(1, Math.floor(elapsed / period) + 1)
  return new Date(publishAt.getTime() + periods * period)
}
