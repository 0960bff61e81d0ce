import { Schema, SchemaGetter } from "effect"

export const pageLimits = { defaultPerPage: 50, maxPerPage: 200, maxPage: 1_000_000 } as const

/**
 * A paging number from the query string that never fails a GET: anything
 * that is not an integer falls back to the default, and values out of range
 * are clamped into it (per the contract's page and per_page limits).
 */
const clampedInt = (fallback: number, max: number, description: string) =>
  Schema.String.pipe(
    Schema.decodeTo(Schema.Int, {
      decode: SchemaGetter.transform((raw: string) => {
        const parsed = Number.parseInt(raw, 10)
        return Number.isFinite(parsed) ? Math.min(Math.max(parsed, 1), max) : fallback
      }),
      encode: SchemaGetter.transform((value: number) => String(value))
    })
  ).annotate({ description })

export const PageQuery = clampedInt(1, pageLimits.maxPage, "Page number, from 1 (default 1)")
export const PerPageQuery = clampedInt(
  pageLimits.defaultPerPage,
  pageLimits.maxPerPage,
  "Page size, 1 to 200 (default 50); out-of-range values are clamped"
)

/** `meta` of every paged list. */
export const PageMeta = Schema.Struct({
  page: Schema.Int,
  per_page: Schema.Int,
  total: Schema.Int
})

export interface Page {
  readonly page: number
  readonly perPage: number
}

export const page = (query: { readonly page?: number | undefined; readonly per_page?: number | undefined }): Page => ({
  page: query.page ?? 1,
  perPage: query.per_page ?? pageLimits.defaultPerPage
})
