import * as os from "node:os"
import { Context, Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import { accessSync, constants, existsSync, mkdirSync, readFileSync } from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { type Browser as PlaywrightBrowser, chromium, type Page } from "playwright-core"
import { inject } from "vitest"

/** Debian's Chromium, used when the machine has it. */
export const debianChromium = "/usr/bin/chromium"

/** The browser the console's tests drive: its executable, what its process needs in its environment, and what it is. */
export interface ChromiumChoice {
  readonly executablePath: string
  readonly env: Readonly<Record<string, string>>
  readonly description: string
}

declare module "vitest" {
  export interface ProvidedContext {
    chromium: ChromiumChoice
  }
}

const isExecutable = (file: string) => {
  try {
    accessSync(file, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/**
 * Decides, once per run (the global set-up calls it before any test file starts), which Chromium the
 * browser tests drive: Debian's when it is installed, otherwise the one the npm package
 * @sparticuz/chromium ships inside itself, so a machine with only Node and npm runs them too. The
 * package's browser is unpacked once into the temporary directory (kept between runs), with the NSS
 * libraries it needs, so it runs on a machine without libnss3; where the machine has no fontconfig set-up,
 * the fonts it ships are used.
 */
export const chooseChromium = async (): Promise<ChromiumChoice> => {
  if (isExecutable(debianChromium)) {
    return { executablePath: debianChromium, env: {}, description: `Debian's Chromium (${debianChromium})` }
  }
  const { default: shipped, inflate } = await import("@sparticuz/chromium")
  // The package's folder, from its entry point (build/index.js): its browser and libraries are in bin/.
  const packageDir = path.join(path.dirname(createRequire(import.meta.url).resolve("@sparticuz/chromium")), "..")
  const { version } = JSON.parse(readFileSync(path.join(packageDir, "package.json"), "utf8")) as { version: string }
  const executablePath = await shipped.executablePath() // also unpacks its fonts
  const libraries = path.join(await inflate(path.join(packageDir, "bin", "al2023.tar.br")), "lib")
  const env: Record<string, string> = {
    LD_LIBRARY_PATH: [libraries, process.env.LD_LIBRARY_PATH].filter((part) => part !== undefined && part !== "").join(
      ":"
    )
  }
  if (!existsSync("/etc/fonts/fonts.conf")) env.FONTCONFIG_PATH = path.join(os.tmpdir(), "fonts")
  return {
    executablePath,
    env,
    description: `the Chromium of the npm package @sparticuz/chromium ${version} (${executablePath})`
  }
}

/** This process's environment, for the browser's, with the unset names left out. */
const inheritedEnv = () =>
  Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined))

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
      const choice = inject("chromium")
      // Playwright gives each launch a fresh profile of its own (a temporary user-data-dir) and removes it on close.
      return yield* Effect.acquireRelease(
        Effect.promise(() =>
          chromium.launch({
            executablePath: choice.executablePath,
            env: { ...inheritedEnv(), ...choice.env },
            headless: true,
            args: chromiumArgs
          })
        ),
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
      Effect.promise(() =>
        browser.newContext({ viewport: { width: options.width ?? 1280, height: options.height ?? 860 } })
      ),
      (context) => Effect.promise(() => context.close())
    )
    return yield* Effect.promise(() => context.newPage())
  })

/**
 * Where screenshots go: the guides' (docs/screenshots) with UPDATE_SCREENSHOTS=1, otherwise a
 * temporary folder, so a test run takes them (the pages still render) without changing the checkout.
 */
export const screenshotsDir = process.env.UPDATE_SCREENSHOTS === "1"
  ? path.join(import.meta.dirname, "..", "..", "docs", "screenshots")
  : path.join(os.tmpdir(), "partner-api-screenshots")

/** A screenshot of the whole page, for the guides (see screenshotsDir). */
export const screenshot = (page: Page, name: string) =>
  Effect.promise(async () => {
    mkdirSync(screenshotsDir, { recursive: true })
    return page.screenshot({ path: path.join(screenshotsDir, `${name}.png`), fullPage: true })
  })

/** Runs a Playwright step. */
export const step = <A>(run: () => Promise<A>) => Effect.promise(run)
