/**
 * A strict reader of the Prometheus text exposition format (version 0.0.4),
 * for tests of GET /metrics: it throws on anything a Prometheus server or
 * `promtool check metrics` would refuse, and on what the format's rules
 * forbid though scrapers tolerate it (a family split in two, a TYPE after
 * its samples, a repeated series, histogram buckets that are not cumulative).
 */

export type MetricType = "counter" | "gauge" | "histogram" | "summary" | "untyped"

export interface Sample {
  readonly name: string
  readonly labels: Readonly<Record<string, string>>
  readonly value: number
}

export interface Family {
  readonly name: string
  readonly type: MetricType
  readonly help: string | undefined
  readonly samples: ReadonlyArray<Sample>
}

const metricName = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/
const labelName = /^[a-zA-Z_][a-zA-Z0-9_]*$/
const types = new Set<MetricType>(["counter", "gauge", "histogram", "summary", "untyped"])

const parseValue = (text: string, where: string): number => {
  if (text === "NaN") return Number.NaN
  if (text === "+Inf" || text === "Inf") return Number.POSITIVE_INFINITY
  if (text === "-Inf") return Number.NEGATIVE_INFINITY
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) throw new Error(`${where}: "${text}" is not a number`)
  return Number(text)
}

/** `{a="x",b="y"}` from position `start` of `line`; returns the labels and where they end. */
const parseLabels = (line: string, start: number, where: string) => {
  const labels: Record<string, string> = {}
  let i = start + 1
  while (line[i] !== "}") {
    const nameEnd = line.indexOf("=", i)
    if (nameEnd === -1) throw new Error(`${where}: a label without "="`)
    const name = line.slice(i, nameEnd)
    if (!labelName.test(name) || name.startsWith("__")) throw new Error(`${where}: bad label name "${name}"`)
    if (name in labels) throw new Error(`${where}: label "${name}" twice`)
    if (line[nameEnd + 1] !== "\"") throw new Error(`${where}: label "${name}" value is not quoted`)
    let value = ""
    let j = nameEnd + 2
    for (;; j++) {
      const char = line[j]
      if (char === undefined) throw new Error(`${where}: unterminated label value`)
      if (char === "\"") break
      if (char === "\\") {
        const next = line[++j]
        if (next === "\\") value += "\\"
        else if (next === "\"") value += "\""
        else if (next === "n") value += "\n"
        else throw new Error(`${where}: bad escape "\\${next}" in label "${name}"`)
      } else value += char
    }
    labels[name] = value
    i = j + 1
    if (line[i] === ",") i++
    else if (line[i] !== "}") throw new Error(`${where}: expected "," or "}" after label "${name}"`)
  }
  return { labels, end: i + 1 }
}

/** The family a sample line belongs to, by the name's histogram or summary suffix. */
const familyOf = (sample: string, declared: ReadonlyMap<string, MetricType>) => {
  for (const suffix of ["_bucket", "_sum", "_count"]) {
    if (!sample.endsWith(suffix)) continue
    const base = sample.slice(0, -suffix.length)
    const type = declared.get(base)
    if (type === "histogram" || (type === "summary" && suffix !== "_bucket")) return base
  }
  return sample
}

const seriesKey = (sample: Sample) =>
  sample.name + JSON.stringify(Object.entries(sample.labels).sort(([a], [b]) => a < b ? -1 : 1))

/** Histogram rules: `le` on every bucket, cumulative counts, a +Inf bucket equal to _count, one _sum and _count. */
const checkHistogram = (family: Family) => {
  const groups = new Map<string, { buckets: Array<[number, number]>; count?: number; sum?: number }>()
  for (const sample of family.samples) {
    const { le, ...rest } = sample.labels
    const key = JSON.stringify(Object.entries(rest).sort(([a], [b]) => a < b ? -1 : 1))
    const group = groups.get(key) ?? { buckets: [] }
    groups.set(key, group)
    if (sample.name === `${family.name}_bucket`) {
      if (le === undefined) throw new Error(`${family.name}: a bucket without "le"`)
      group.buckets.push([parseValue(le, `${family.name} le`), sample.value])
    } else if (sample.name === `${family.name}_count`) group.count = sample.value
    else if (sample.name === `${family.name}_sum`) group.sum = sample.value
    else throw new Error(`${family.name}: histogram sample "${sample.name}"`)
  }
  for (const [labels, group] of groups) {
    const where = `${family.name}${labels}`
    if (group.count === undefined || group.sum === undefined) throw new Error(`${where}: _count or _sum missing`)
    const last = group.buckets.at(-1)
    if (last === undefined || last[0] !== Number.POSITIVE_INFINITY) throw new Error(`${where}: no +Inf bucket last`)
    if (last[1] !== group.count) throw new Error(`${where}: +Inf bucket ${last[1]} is not _count ${group.count}`)
    group.buckets.forEach(([bound, count], i) => {
      if (i === 0) return
      const [previousBound, previousCount] = group.buckets[i - 1]
      if (bound <= previousBound) throw new Error(`${where}: bucket bounds not increasing at le=${bound}`)
      if (count < previousCount) throw new Error(`${where}: bucket counts not cumulative at le=${bound}`)
    })
  }
}

/** Reads a whole exposition; throws with the line at fault on any breach of the format. */
export const parsePrometheusText = (text: string): ReadonlyMap<string, Family> => {
  if (text.length > 0 && !text.endsWith("\n")) throw new Error("the exposition does not end with a newline")
  const declared = new Map<string, MetricType>()
  const helps = new Map<string, string>()
  const samples = new Map<string, Array<Sample>>()
  const closed = new Set<string>()
  const seen = new Set<string>()
  let current: string | undefined
  const enter = (family: string, where: string) => {
    if (family === current) return
    if (closed.has(family) || samples.has(family)) throw new Error(`${where}: family "${family}" is split in two`)
    if (current !== undefined) closed.add(current)
    current = family
  }

  text.split("\n").forEach((line, index) => {
    const where = `line ${index + 1}`
    if (line.trim() === "") return
    if (line.startsWith("#")) {
      const match = /^#\s+(HELP|TYPE)\s+(\S+)(?:\s(.*))?$/.exec(line)
      if (match === null) return // a plain comment
      const [, keyword, name, rest = ""] = match
      if (!metricName.test(name)) throw new Error(`${where}: bad metric name "${name}"`)
      enter(name, where)
      if (keyword === "HELP") {
        if (helps.has(name)) throw new Error(`${where}: second HELP for "${name}"`)
        helps.set(name, rest)
      } else {
        if (declared.has(name)) throw new Error(`${where}: second TYPE for "${name}"`)
        if (samples.has(name)) throw new Error(`${where}: TYPE for "${name}" after its samples`)
        if (!types.has(rest.trim() as MetricType)) throw new Error(`${where}: unknown type "${rest}"`)
        declared.set(name, rest.trim() as MetricType)
      }
      return
    }
    const nameMatch = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(line)
    if (nameMatch === null) throw new Error(`${where}: no metric name in "${line}"`)
    const name = nameMatch[0]
    let rest = line.slice(name.length)
    let labels: Record<string, string> = {}
    if (rest.startsWith("{")) {
      const parsed = parseLabels(line, name.length, where)
      labels = parsed.labels
      rest = line.slice(parsed.end)
    }
    const parts = rest.trim().split(/\s+/)
    if (!rest.startsWith(" ") || parts.length < 1 || parts.length > 2) {
      throw new Error(`${where}: expected " value [timestamp]"`)
    }
    const value = parseValue(parts[0], where)
    if (parts.length === 2 && !/^-?\d+$/.test(parts[1])) throw new Error(`${where}: bad timestamp "${parts[1]}"`)
    const family = familyOf(name, declared)
    enter(family, where)
    const sample: Sample = { name, labels, value }
    const key = seriesKey(sample)
    if (seen.has(key)) throw new Error(`${where}: series ${key} repeated`)
    seen.add(key)
    const type = declared.get(family) ?? "untyped"
    if (type === "counter" && !(value >= 0)) throw new Error(`${where}: counter "${name}" is ${parts[0]}`)
    if ((type === "histogram" || type === "summary") && name.endsWith("_count") && !(value >= 0)) {
      throw new Error(`${where}: "${name}" is ${parts[0]}`)
    }
    const list = samples.get(family) ?? []
    list.push(sample)
    samples.set(family, list)
  })

  const families = new Map<string, Family>()
  for (const name of new Set([...declared.keys(), ...samples.keys()])) {
    const family: Family = {
      name,
      type: declared.get(name) ?? "untyped",
      help: helps.get(name),
      samples: samples.get(name) ?? []
    }
    if (family.type === "histogram") checkHistogram(family)
    families.set(name, family)
  }
  return families
}
