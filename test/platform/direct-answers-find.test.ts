/** Which paths a direct answer takes (platform/DirectAnswers): pure, no server. */
import { assert, it } from "@effect/vitest"
import { Effect } from "effect"
import { DirectAnswers } from "../../src/platform/DirectAnswers.ts"

const others = [
  "/api/v1/status",
  "/api/v1/events/live",
  "/api/v1/events/live/:eventId",
  "/api/v1/events/:eventId/odds",
  "/api/v1/events/:eventId/odds/live",
  "/api/v1/events/:eventId/lineup"
]

it.effect("an exact path, or one parameter where no other route's literal is, one segment, as the router reads it", () =>
  Effect.gen(function*() {
    const answers = yield* DirectAnswers
    const answer = () => Effect.undefined
    answers.add({ route: "/api/v1/status", others, answer })
    answers.add({ route: "/api/v1/events/:eventId/odds", others, answer })
    const routeOf = (path: string) => {
      const found = answers.find(path)
      return found === undefined ? undefined : [found[0].route, found[1]]
    }
    assert.deepStrictEqual(routeOf("/api/v1/status"), ["/api/v1/status", undefined])
    assert.deepStrictEqual(routeOf("/api/v1/events/123/odds"), ["/api/v1/events/:eventId/odds", "123"])
    // The router gives these to other routes, or reads them otherwise: the edge leaves them to it.
    for (
      const path of [
        "/api/v1/events/live/odds",
        "/api/v1/events/123/odds/live",
        "/api/v1/events//odds",
        "/api/v1/events/a/b/odds",
        "/api/v1/events/a%20b/odds",
        "/api/v1/events/123/lineup",
        "/api/v1/status/",
        "/api/v1/Status"
      ]
    ) assert.isUndefined(routeOf(path), path)
  }).pipe(Effect.provide(DirectAnswers.layer)))
