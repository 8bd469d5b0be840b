/** A channel's posting times: local times of day, `HH:MM` (24 h). */
const timePattern = /^([01]\d|2[0-3]):[0-5]\d$/

export const isPostingTime = (s: string): boolean => timePattern.test(s)

/** Sorted, without duplicates; null when one of them is not HH:MM. */
export const parsePostingTimes = (list: ReadonlyArray<string>): ReadonlyArray<string> | null =>
  list.every(isPostingTime) ? [...new Set(list)].sort() : null
