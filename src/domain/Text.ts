import { Schema } from "effect"

/**
 * Text as PostgreSQL can keep it. Its `text` refuses NUL outright (the
 * query fails), and a lone surrogate reaches it as U+FFFD, so two different
 * ids would become one. Such text is refused where it comes in, never
 * repaired.
 */

/** True when PostgreSQL stores `text` exactly as it is: no NUL, no unpaired surrogate. */
export const isStorableText = (text: string): boolean => text.isWellFormed() && !text.includes("\u0000")

export const storableTextMessage = "The :attribute field must be text without NUL characters or unpaired surrogates."

/** The check behind StorableText, for schemas that transform their string first (a trim, say). */
export const isStorable = Schema.makeFilter((text: string) => isStorableText(text), { message: storableTextMessage })

/** A string PostgreSQL stores as it is; anything else is refused, naming the field. */
export const StorableText = Schema.String.check(isStorable)

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/** Bytes read as UTF-8, or undefined when they are not UTF-8 (never repaired into U+FFFD). */
export const decodeUtf8 = (bytes: ArrayBuffer | Uint8Array): string | undefined => {
  try {
    return strictUtf8.decode(bytes)
  } catch {
    return undefined
  }
}

/**
 * A percent-encoded URL component (`+` as a space, as forms send it), or
 * undefined when its bytes are not UTF-8. URLSearchParams would turn those
 * into U+FFFD without a word.
 */
export const decodeUrlComponent = (raw: string): string | undefined => {
  try {
    return decodeURIComponent(raw.replaceAll("+", " "))
  } catch {
    return undefined
  }
}

/**
 * True when JSON text nests arrays and objects deeper than `limit`. One
 * pass over the characters, skipping strings, before any parse: a body
 * that is nothing but brackets costs a scan, not a parse and a decode.
 */
export const nestsDeeperThan = (json: string, limit: number): boolean => {
  let depth = 0
  let inString = false
  for (let i = 0; i < json.length; i++) {
    const code = json.charCodeAt(i)
    if (inString) {
      if (code === 92) i++ // backslash: the next character is escaped
      else if (code === 34) inString = false
    } else if (code === 34) {
      inString = true
    } else if (code === 91 || code === 123) {
      if (++depth > limit) return true
    } else if (code === 93 || code === 125) {
      depth--
    }
  }
  return false
}

const naturalOrder = new Intl.Collator("und", { numeric: true, sensitivity: "accent" })

/**
 * Names in the order people read them: without regard to case, numbers by
 * value ("A. de Minaur" before "A. Sabalenka", "Team 2" before "Team 10"),
 * code units breaking ties. The same order as the database's natural_ci
 * collation (sql/0008), for lists sorted in memory.
 */
export const compareNames = (a: string, b: string): number => naturalOrder.compare(a, b) || (a < b ? -1 : a > b ? 1 : 0)
