/** What a person does on the console's and the portal's pages, step by step: shared by their browser tests. */
import { Effect } from "effect"
import type { Page } from "playwright-core"
import { testPassword } from "./AdminConsole.ts"
import { serverUrl, step } from "./Browser.ts"

/** Waits until the page says it is drawn. */
export const ready = (page: Page) => step(() => page.waitForSelector("main[data-ready=true]"))

/** Logs in on a panel's log-in page (`/admin` or `/portal`) and waits for its pages. */
export const logIn = (page: Page, panel: "/admin" | "/portal", email: string, password = testPassword) =>
  Effect.gen(function*() {
    const base = yield* serverUrl
    yield* step(() => page.goto(`${base}${panel}`))
    yield* ready(page)
    yield* step(() => page.getByLabel("E-mail").fill(email))
    yield* step(() => page.getByLabel("Password").fill(password))
    yield* step(() => page.getByRole("button", { name: "Log in" }).click())
    yield* step(() => page.getByRole("button", { name: "Log out" }).waitFor())
    yield* ready(page)
  })

/** Goes to a section through the navigation, as a person does, and waits for it to be drawn. */
export const openSection = (page: Page, section: string) =>
  Effect.andThen(
    step(() => page.getByRole("navigation").getByRole("link", { name: section, exact: true }).click()),
    ready(page)
  )
