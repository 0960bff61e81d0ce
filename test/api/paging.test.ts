/**
 * Paging as the query string gives it, without a database or a server:
 * `page` and `per_page` read strictly, `per_page` above 200 clamped to 200,
 * and the page asked for by default.
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { page, pageLimits, PageQuery, PerPageQuery } from "../../src/api/Paging.ts"
import { pageWindow } from "../../src/domain/Paging.ts"

const read = (schema: typeof PageQuery, text: string) => Schema.decodeUnknownExit(schema)(text)
const value = (schema: typeof PageQuery, text: string) => Schema.decodeUnknownSync(schema)(text)
const refused = (schema: typeof PageQuery, text: string) => assert.isTrue(read(schema, text)._tag === "Failure", text)

describe("per_page", () => {
  it("is taken as given from 1 to 200", () => {
    assert.strictEqual(value(PerPageQuery, "1"), 1)
    assert.strictEqual(value(PerPageQuery, "50"), 50)
    assert.strictEqual(value(PerPageQuery, "200"), 200)
  })

  it("above 200 means 200, however large", () => {
    for (const text of ["201", "500", "999", "1000000", "9999999999999999"]) {
      assert.strictEqual(value(PerPageQuery, text), pageLimits.maxPerPage, text)
    }
  })

  it("below 1, or not plain decimal digits, is refused rather than guessed at", () => {
    for (const text of ["0", "-3", "1e2", "0x10", "1.5", " 5", "+2", "", "abc", "12345678901234567"]) {
      refused(PerPageQuery, text)
    }
  })
})

describe("page", () => {
  it("is 1 to 1,000,000, never clamped", () => {
    assert.strictEqual(value(PageQuery, "1"), 1)
    assert.strictEqual(value(PageQuery, "1000000"), 1_000_000)
    for (const text of ["0", "-1", "1000001", "abc", "1e2"]) refused(PageQuery, text)
  })
})

describe("the page asked for", () => {
  it("is page 1 of 50 unless the query says otherwise", () => {
    assert.deepStrictEqual(page({}), { page: 1, perPage: 50 })
    assert.deepStrictEqual(page({ page: 3 }), { page: 3, perPage: 50 })
    assert.deepStrictEqual(page({ per_page: 10 }), { page: 1, perPage: 10 })
  })

  it("a clamped per_page pages by 200", () => {
    const request = page({ page: 2, per_page: value(PerPageQuery, "999") })
    assert.deepStrictEqual(pageWindow(request), { limit: 200, offset: 200 })
  })
})
