import { Effect, Option, Schema } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { SqlClient, SqlSchema } from "effect/sql"
import { NumberFromNumeric } from "../platform/SqlCodecs.ts"
import { sandboxCatalog } from "./SandboxCatalog.ts"

/**
 * The sandbox aggregator's pages: the game a launch URL opens, and the game
 * and provider art its catalog points to. They are the demo a new user
 * clicks, so they are made to look like a game lobby, not a debug dump.
 */

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!)

const hashOf = (text: string) => {
  let hash = 2166136261
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619)
  return hash >>> 0
}

const catalog = sandboxCatalog("")
const gameByCode = new Map(catalog.games.map((game) => [game.code, game]))
const providerBySlug = new Map(
  catalog.providers.map((provider) => [provider.imageUrl!.replace(/^.*\/provider-|\.svg$/g, ""), provider])
)

/** Deterministic cover art: two hues from the code, the title, the provider's initials. */
export const artSvg = (code: string) => {
  const game = gameByCode.get(code)
  const provider = game === undefined ? providerBySlug.get(code.replace(/^provider-/, "")) : undefined
  const title = game?.name ?? provider?.name ?? code
  const subtitle = game?.providerCode ?? (provider ? "Provider" : "")
  const hash = hashOf(code)
  const hueA = hash % 360
  const hueB = (hueA + 40 + (hash >> 9) % 80) % 360
  const words = title.split(" ")
  const lines = words.length > 1 ? [words.slice(0, Math.ceil(words.length / 2)).join(" "), words.slice(Math.ceil(words.length / 2)).join(" ")] : [title]
  const initials = (game?.providerCode ?? title).split(" ").map((word) => word[0]).join("").slice(0, 3)
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 400 300" width="400" height="300">
  <defs>
    <linearGradient id="g" x1="0" y1="0" x2="1" y2="1">
      <stop offset="0" stop-color="hsl(${hueA} 70% 45%)"/>
      <stop offset="1" stop-color="hsl(${hueB} 75% 22%)"/>
    </linearGradient>
  </defs>
  <rect width="400" height="300" rx="24" fill="url(#g)"/>
  <circle cx="330" cy="70" r="90" fill="rgba(255,255,255,0.08)"/>
  <circle cx="60" cy="260" r="110" fill="rgba(0,0,0,0.12)"/>
  <text x="32" y="58" font-family="Georgia, serif" font-size="22" fill="rgba(255,255,255,0.75)">${escapeHtml(initials)}</text>
  ${
    lines.map((line, i) =>
      `<text x="32" y="${170 + i * 46}" font-family="Georgia, serif" font-weight="bold" font-size="40" fill="#fff">${
        escapeHtml(line)
      }</text>`
    ).join("\n  ")
  }
  <text x="32" y="270" font-family="Helvetica, Arial, sans-serif" font-size="16" fill="rgba(255,255,255,0.7)">${
    escapeHtml(subtitle)
  }</text>
</svg>`
}

const SessionRow = Schema.Struct({
  id: Schema.String,
  user_code: Schema.BigInt,
  game_code: Schema.String,
  provider: Schema.String,
  player_name: Schema.NullOr(Schema.String),
  balance: NumberFromNumeric,
  lang: Schema.String
})
type SessionRow = typeof SessionRow.Type

const money = (amount: number) =>
  amount.toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 })

const page = (title: string, body: string) => `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escapeHtml(title)}</title>
  <style>
    :root { color-scheme: dark; }
    * { box-sizing: border-box; }
    body {
      margin: 0; min-height: 100vh; display: grid; place-items: center; padding: 24px;
      font-family: "Segoe UI", Helvetica, Arial, sans-serif; color: #f4f1ea;
      background: radial-gradient(circle at 20% 10%, #3b1d5a 0%, #150b24 45%, #07040d 100%);
    }
    .table { width: min(460px, 100%); background: rgba(20, 12, 34, 0.85); border: 1px solid rgba(255,215,128,0.25);
      border-radius: 24px; box-shadow: 0 30px 80px rgba(0,0,0,0.55); overflow: hidden; }
    .cover { display: block; width: 100%; aspect-ratio: 4 / 3; }
    .content { padding: 24px 28px 28px; }
    .provider { text-transform: uppercase; letter-spacing: 0.14em; font-size: 12px; color: #d9b86c; }
    h1 { margin: 6px 0 18px; font-family: Georgia, serif; font-size: 32px; }
    .seat { display: flex; justify-content: space-between; align-items: end; gap: 16px;
      padding: 16px 18px; border-radius: 16px; background: rgba(255,255,255,0.05); }
    .label { font-size: 12px; color: #b7a9cc; text-transform: uppercase; letter-spacing: 0.08em; }
    .player { font-size: 18px; margin-top: 4px; }
    .balance { font-size: 30px; font-weight: 700; color: #ffd780; font-variant-numeric: tabular-nums; text-align: right; }
    .reels { display: grid; grid-template-columns: repeat(3, minmax(0, 1fr)); gap: 12px; margin: 22px 0; }
    .reel { aspect-ratio: 1; display: grid; place-items: center; font: bold 52px Georgia, serif; border-radius: 16px; overflow: hidden;
      background: linear-gradient(180deg, #fdf6e3, #e8dcc0); color: #222; box-shadow: inset 0 -6px 0 rgba(0,0,0,0.15); }
    .note { margin: 0; font-size: 13px; color: #b7a9cc; text-align: center; }
    .session { margin-top: 18px; font-size: 11px; color: #6f6385; text-align: center; word-break: break-all; }
  </style>
</head>
<body>
${body}
</body>
</html>`

const gamePage = (session: SessionRow) => {
  const game = gameByCode.get(session.game_code)
  const title = game?.name ?? session.game_code
  // Symbols every system font has, coloured here rather than relying on emoji fonts.
  const symbols = [
    `<span style="color:#c0392b">7</span>`,
    `<span style="color:#d4a017">★</span>`,
    `<span style="color:#2e86c1">♦</span>`,
    `<span style="color:#c0392b">♥</span>`,
    `<span style="color:#1e8449">♣</span>`,
    `<span style="color:#7d3c98">$</span>`
  ]
  const seed = hashOf(session.id)
  const reels = [0, 1, 2].map((i) => symbols[(seed >>> (i * 5)) % symbols.length])
  return page(
    `${title} · Sandbox casino`,
    `<main class="table">
  <img class="cover" src="/sandbox/casino/art/${encodeURIComponent(session.game_code)}.svg" alt="">
  <section class="content">
    <div class="provider">${escapeHtml(session.provider)}</div>
    <h1>${escapeHtml(title)}</h1>
    <div class="seat">
      <div>
        <div class="label">Player</div>
        <div class="player">${escapeHtml(session.player_name ?? `Player #${session.user_code}`)}</div>
      </div>
      <div>
        <div class="label">Balance</div>
        <div class="balance" id="balance">${money(session.balance)}</div>
      </div>
    </div>
    <div class="reels" aria-label="reels">${reels.map((symbol) => `<div class="reel">${symbol}</div>`).join("")}</div>
    <p class="note">Sandbox casino: a demo game launched through the Partner Aggregator API.</p>
    <div class="session">session ${escapeHtml(session.id)} · user ${session.user_code} · ${escapeHtml(session.lang)}</div>
  </section>
</main>`
  )
}

const notFoundPage = page(
  "Session not found · Sandbox casino",
  `<main class="table"><section class="content">
    <div class="provider">Sandbox casino</div>
    <h1>This game session does not exist.</h1>
    <p class="note">Launch the game again through POST /api/partner/v1/launch.</p>
  </section></main>`
)

const htmlResponse = (body: string, status: number) =>
  HttpServerResponse.text(body, { status, contentType: "text/html; charset=utf-8" })

export const SandboxPages = HttpRouter.use(Effect.fnUntraced(function*(router) {
  const sql = yield* SqlClient.SqlClient
  const findSession = SqlSchema.findOneOption({
    Request: Schema.String,
    Result: SessionRow,
    execute: (id) =>
      sql`SELECT id, user_code, game_code, provider, player_name, balance, lang
          FROM sandbox_casino_sessions WHERE id = ${id}`
  })

  yield* router.add(
    "GET",
    "/sandbox/casino/play/:session",
    Effect.gen(function*() {
      const { session } = yield* HttpRouter.params
      const found = yield* findSession(session ?? "").pipe(Effect.orDie)
      return Option.match(found, {
        onNone: () => htmlResponse(notFoundPage, 404),
        onSome: (row) => htmlResponse(gamePage(row), 200)
      })
    })
  )

  yield* router.add(
    "GET",
    "/sandbox/casino/art/:file",
    Effect.gen(function*() {
      const { file } = yield* HttpRouter.params
      const code = (file ?? "").replace(/\.svg$/, "")
      return HttpServerResponse.text(artSvg(code), {
        contentType: "image/svg+xml",
        headers: { "cache-control": "public, max-age=86400" }
      })
    })
  )
}))
