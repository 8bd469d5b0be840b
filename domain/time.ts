/** Spec: timestamps in answers are ISO 8601 in UTC with milliseconds, ending in Z. */
export const isoUtc = (d: Date): string => d.toISOString()

export const isoOrNull = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null)
