/**
 * Days cut in a partner's time zone, as pure rules: a zone's day as a span of UTC instants (across midnight UTC,
 * either side of it; 23 and 25 hours where the clocks change; a day a zone skipped), the UTC days it overlaps, the
 * names taken, and a zone's day read from the lists of UTC days.
 */
import { assert, describe, it } from "@effect/vitest"
import { dayIn, eventsOfDay, isUtcDay, timeZoneNamed, utcDaysOf } from "../../src/domain/ZoneDays.ts"

const at = (iso: string) => Date.parse(iso)
const hours = (window: { readonly from: number; readonly before: number }) => (window.before - window.from) / 3_600_000

describe("a day in a time zone", () => {
  it("São Paulo's day starts at 03:00 UTC and ends after midnight UTC; Tokyo's starts the UTC day before", () => {
    assert.deepStrictEqual(dayIn("20261122", "America/Sao_Paulo"), {
      from: at("2026-11-22T03:00:00Z"),
      before: at("2026-11-23T03:00:00Z")
    })
    assert.deepStrictEqual(dayIn("20261122", "Asia/Tokyo"), {
      from: at("2026-11-21T15:00:00Z"),
      before: at("2026-11-22T15:00:00Z")
    })
    assert.deepStrictEqual(utcDaysOf(dayIn("20261122", "America/Sao_Paulo")), ["20261122", "20261123"])
    assert.deepStrictEqual(utcDaysOf(dayIn("20261122", "Asia/Tokyo")), ["20261121", "20261122"])
  })

  it("UTC, and a zone at UTC+0 that day, is the UTC day; the same zone in summer is not", () => {
    assert.deepStrictEqual(dayIn("20261122", "UTC"), { from: at("2026-11-22T00:00:00Z"), before: at("2026-11-23Z") })
    assert.isTrue(isUtcDay(dayIn("20261122", "UTC")))
    assert.isTrue(isUtcDay(dayIn("20261122", "Europe/London")))
    assert.isFalse(isUtcDay(dayIn("20260622", "Europe/London")))
    assert.deepStrictEqual(utcDaysOf(dayIn("20261122", "UTC")), ["20261122"])
  })

  it("days the clocks change are 23 or 25 hours; a midnight the clocks skip starts the day after the gap", () => {
    assert.strictEqual(hours(dayIn("20260329", "Europe/London")), 23)
    assert.strictEqual(hours(dayIn("20261025", "Europe/London")), 25)
    // São Paulo's summer time began at midnight on 4 November 2018: that day began at 01:00 local, 03:00 UTC.
    assert.deepStrictEqual(dayIn("20181104", "America/Sao_Paulo"), {
      from: at("2018-11-04T03:00:00Z"),
      before: at("2018-11-05T02:00:00Z")
    })
    // Samoa skipped 30 December 2011: no instant is on it.
    const skipped = dayIn("20111230", "Pacific/Apia")
    assert.strictEqual(skipped.from, skipped.before)
  })

  it("an IANA name in any case, as the runtime spells it; offsets and unknown names are none", () => {
    assert.strictEqual(timeZoneNamed("America/Sao_Paulo"), "America/Sao_Paulo")
    assert.strictEqual(timeZoneNamed("asia/tokyo"), "Asia/Tokyo")
    assert.strictEqual(timeZoneNamed("utc"), "UTC")
    assert.strictEqual(timeZoneNamed("Etc/GMT+3"), "Etc/GMT+3")
    for (const name of ["Mars/Olympus", "+03:00", "-03:00", "", "America/Sao Paulo", "Z", "a".repeat(65)]) {
      assert.strictEqual(timeZoneNamed(name), undefined, name)
    }
  })

  it("a zone's day from the UTC days' lists: within the day, each event once, in kick-off order", () => {
    const event = (id: string, iso: string) => ({ id, startsAt: new Date(iso) })
    const day = dayIn("20261122", "America/Sao_Paulo")
    const first = [
      event("a", "2026-11-22T02:59:59Z"),
      event("c", "2026-11-22T23:30:00Z"),
      event("b", "2026-11-22T03:00:00Z")
    ]
    const second = [
      event("d", "2026-11-23T02:30:00Z"),
      event("c", "2026-11-22T23:30:00Z"),
      event("e", "2026-11-23T03:00:00Z")
    ]
    assert.deepStrictEqual(eventsOfDay([first, second], day).map((e) => e.id), ["b", "c", "d"])
  })
})
