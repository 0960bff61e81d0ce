import * as os from "node:os"
import { Context, Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import { existsSync, mkdirSync } from "node:fs"
import * as path from "node:path"
import { type Browser as PlaywrightBrowser, chromium, type Page } from "playwright-core"

/** Debian's Chromium, which `.ci/run` installs when it is missing. */
export const chromiumPath = "/usr/bin/chromium"

/** The machine's network is closed, and the test wants nothing of Chromium's own: no updates, sync or QUIC. */
const chromiumArgs = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync"
]

/** A real headless Chromium with a fresh profile, closed (and its profile removed) with the test file. */
export class Browser extends Context.Service<Browser, PlaywrightBrowser>()("test/Browser") {
  static readonly layer = Layer.effect(
    Browser,
    Effect.gen(function*() {
      if (!existsSync(chromiumPath)) {
        return yield* Effect.die(new Error(
          `Chromium is not installed at ${chromiumPath}: the console's browser tests need it (apt-get install chromium; .ci/run does).`
        ))
      }
      // Playwright gives each launch a fresh profile of its own (a temporary user-data-dir) and removes it on close.
      return yield* Effect.acquireRelease(
        Effect.promise(() => chromium.launch({ executablePath: chromiumPath, headless: true, args: chromiumArgs })),
        (browser) => Effect.promise(() => browser.close())
      )
    })
  )
}

/** The address of the test's own server, as a browser reaches it. */
export const serverUrl = Effect.map(Effect.service(HttpServer.HttpServer), (server) => {
  const address = server.address
  if (address._tag === "UnixPathAddress") throw new Error("the test server does not listen on TCP")
  return `http://127.0.0.1:${address.port}`
})

/** A fresh page (its own cookies) at laptop size, closed with the scope. */
export const newPage = (options: { readonly width?: number; readonly height?: number } = {}) =>
  Effect.gen(function*() {
    const browser = yield* Browser
    const context = yield* Effect.acquireRelease(
      Effect.promise(() => browser.newContext({ viewport: { width: options.width ?? 1280, height: options.height ?? 860 } })),
      (context) => Effect.promise(() => context.close())
    )
    return yield* Effect.promise(() => context.newPage())
  })

/**
 * Where screenshots go: the README's (docs/screenshots) with UPDATE_SCREENSHOTS=1, otherwise a
 * temporary folder, so a test run takes them (the pages still render) without changing the checkout.
 */
export const screenshotsDir = process.env.UPDATE_SCREENSHOTS === "1"
  ? path.join(import.meta.dirname, "..", "..", "docs", "screenshots")
  : path.join(os.tmpdir(), "partner-api-screenshots")

/** A screenshot of the whole page, for the README (see screenshotsDir). */
export const screenshot = (page: Page, name: string) =>
  Effect.promise(async () => {
    mkdirSync(screenshotsDir, { recursive: true })
    return page.screenshot({ path: path.join(screenshotsDir, `${name}.png`), fullPage: true })
  })

/** Runs a Playwright step. */
export const step = <A>(run: () => Promise<A>) => Effect.promise(run)
