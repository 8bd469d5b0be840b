/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4), for tests
 * that check /metrics as a scraper would: every line must parse, every sample must
 * belong to a family declared with # TYPE, names and labels must be valid, histograms
 * must have cumulative buckets ending in +Inf that equal their _count. Throws on the
 * first problem, naming the line.
 */
export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

export interface Family {
  readonly name: string
  readonly type: "counter" | "gauge" | "histogram" | "summary" | "untyped"
  readonly help: string
  readonly samples: Array<Sample>
}

const metricName = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const labelName = /^[a-zA-Z_][a-zA-Z0-9_]*$/
const types = new Set(["counter", "gauge", "histogram", "summary", "untyped"])

/** As Prometheus reads values (Go's ParseFloat): NaN and Inf in any case, e.g. prom-client's `Nan`. */
const parseValue = (text: string, line: string): number => {
  const lower = text.toLowerCase()
  if (lower === "+inf" || lower === "inf") return Infinity
  if (lower === "-inf") return -Infinity
  if (lower === "nan") return NaN
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`bad value ${JSON.stringify(text)} in: ${line}`)
  return Number(text)
}

const parseLabels = (text: string, line: string): Record<string, string> => {
  const labels: Record<string, string> = {}
  let i = 0
  while (i < text.length) {
    const eq = text.indexOf("=", i)
    if (eq < 0) throw new Error(`bad labels in: ${line}`)
    const name = text.slice(i, eq).trim()
    if (!labelName.test(name)) throw new Error(`bad label name ${JSON.stringify(name)} in: ${line}`)
    if (text[eq + 1] !== '"') throw new Error(`label value not quoted in: ${line}`)
    let value = ""
    let j = eq + 2
    for (; j < text.length && text[j] !== '"'; j++) {
      if (text[j] === "\\") {
        const next = text[++j]
        if (next === "n") value += "\n"
        else if (next === "\\" || next === '"') value += next
        else throw new Error(`bad escape in: ${line}`)
      } else value += text[j]
    }
    if (j >= text.length) throw new Error(`unterminated label value in: ${line}`)
    if (name in labels) throw new Error(`label ${name} twice in: ${line}`)
    labels[name] = value
    i = j + 1
    if (text[i] === ",") i++
    else if (i < text.length) throw new Error(`expected , between labels in: ${line}`)
  }
  return labels
}

const familyOf = (families: Map<string, Family>, sample: string): Family | undefined => {
  const direct = families.get(sample)
  if (direct !== undefined) return direct
  for (const suffix of ["_bucket", "_sum", "_count", "_total", "_created"]) {
    if (sample.endsWith(suffix)) {
      const f = families.get(sample.slice(0, -suffix.length))
      if (f !== undefined) return f
    }
  }
  return undefined
}

export const parsePrometheusText = (text: string): Map<string, Family> => {
  const families = new Map<string, Family>()
  const helps = new Map<string, string>()
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue
    if (line.startsWith("#")) {
      const m = line.match(/^# (HELP|TYPE) (\S+) ?(.*)$/)
      if (m === null) continue // a plain comment
      const [, kind, name = "", rest = ""] = m
      if (!metricName.test(name)) throw new Error(`bad metric name in: ${line}`)
      if (kind === "HELP") {
        helps.set(name, rest)
        const f = families.get(name)
        if (f !== undefined) families.set(name, { ...f, help: rest })
      } else {
        if (!types.has(rest)) throw new Error(`bad type in: ${line}`)
        if (families.has(name)) throw new Error(`second # TYPE for ${name}`)
        families.set(name, { name, type: rest as Family["type"], help: helps.get(name) ?? "", samples: [] })
      }
      continue
    }
    const m = line.match(/^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: (-?\d+))?$/)
    if (m === null) throw new Error(`unparseable line: ${line}`)
    const [, name = "", labelText = "", valueText = ""] = m
    const family = familyOf(families, name)
    if (family === undefined) throw new Error(`sample ${name} before its # TYPE`)
    family.samples.push({ name, labels: parseLabels(labelText, line), value: parseValue(valueText, line) })
  }
  for (const family of families.values()) if (family.type === "histogram") checkHistogram(family)
  return families
}

/** Buckets cumulative, ending in le="+Inf" equal to _count, per series. */
const checkHistogram = (family: Family) => {
  const series = new Map<string, Array<Sample>>()
  const key = (labels: Readonly<Record<string, string>>) =>
    JSON.stringify(
      Object.entries(labels)
        .filter(([k]) => k !== "le")
        .sort(([a], [b]) => a.localeCompare(b))
    )
  for (const s of family.samples) {
    if (s.name !== `${family.name}_bucket`) continue
    if (s.labels["le"] === undefined) throw new Error(`${family.name}: a bucket without le`)
    const k = key(s.labels)
    series.set(k, [...(series.get(k) ?? []), s])
  }
  for (const [k, buckets] of series) {
    let previous = -1
    for (const b of buckets) {
      if (b.value < previous) throw new Error(`${family.name}: buckets not cumulative for ${k}`)
      previous = b.value
    }
    const last = buckets[buckets.length - 1]
    if (last?.labels["le"] !== "+Inf") throw new Error(`${family.name}: no +Inf bucket for ${k}`)
    const count = family.samples.find((s) => s.name === `${family.name}_count` && key(s.labels) === k)
    if (count === undefined || count.value !== last.value) throw new Error(`${family.name}: _count differs from the +Inf bucket for ${k}`)
  }
}
