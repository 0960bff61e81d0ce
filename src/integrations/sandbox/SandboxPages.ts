import { Effect, Option } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { randomBytes } from "node:crypto"
import { storedCurrency } from "../../domain/Currency.ts"
import { formatMinor, minorOf } from "../../domain/Money.ts"
import { PartnerPlayers } from "../../partners/PartnerPlayers.ts"
import { sandboxCasinoCatalog } from "./SandboxCasinoCatalog.ts"
import { SandboxConfig } from "./SandboxConfig.ts"
import { openSession, sandboxStakes } from "./SandboxPlay.ts"
import { type GameSession, SandboxRepo } from "./SandboxRepo.ts"

/**
 * The sandbox aggregator's pages: the game a launch URL opens, and the game
 * and provider art its catalog points to. They are the demo a new user
 * clicks, so they are made to look like a game lobby, not a debug dump.
 */

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;" })[c]!)

/** JSON to embed in a <script>: nothing in it can close the element. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c")

const hashOf = (text: string) => {
  let hash = 2166136261
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 16777619)
  return hash >>> 0
}

const catalog = sandboxCasinoCatalog()
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
  const lines = words.length > 1
    ? [words.slice(0, Math.ceil(words.length / 2)).join(" "), words.slice(Math.ceil(words.length / 2)).join(" ")]
    : [title]
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
  <text x="32" y="58" font-family="Georgia, serif" font-size="22" fill="rgba(255,255,255,0.75)">${
    escapeHtml(initials)
  }</text>
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

/**
 * The pages share this service's origin with the operator console (/admin), so a script injected into one
 * could call the console's API with an admin's cookie. Each page's policy runs only the script and style
 * it was sent with (a nonce of its own), and its requests go only here. Not frame-ancestors: a casino's
 * game is opened in a frame on the operator's site.
 */
const pagePolicy = (nonce: string) =>
  [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "img-src 'self' data:",
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'"
  ].join("; ")

const page = (title: string, body: string, nonce: string) =>
  `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <title>${escapeHtml(title)}</title>
  <style nonce="${nonce}">
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
    .controls { display: flex; gap: 12px; align-items: center; margin-bottom: 14px; }
    .controls select { flex: 0 0 auto; padding: 10px 12px; border-radius: 12px; border: 1px solid rgba(255,215,128,0.35);
      background: #1d1230; color: #f4f1ea; font-size: 16px; }
    .controls button { flex: 1; padding: 12px; border: 0; border-radius: 12px; font: bold 18px Georgia, serif; cursor: pointer;
      color: #2a1600; background: linear-gradient(180deg, #ffe29a, #d9a441); box-shadow: 0 6px 0 #8a5a12; }
    .controls button:disabled, .actions button:disabled { opacity: 0.6; cursor: wait; }
    .actions { display: grid; grid-template-columns: 1fr 1fr; gap: 8px; margin-bottom: 14px; }
    .actions button { padding: 8px; border-radius: 10px; border: 1px solid rgba(255,215,128,0.35); cursor: pointer;
      background: #1d1230; color: #f4f1ea; font-size: 13px; }
    .result { min-height: 20px; margin: 0 0 12px; text-align: center; font-size: 15px; }
    .result.win { color: #7dffa8; } .result.refused { color: #ff9c8a; }
    .callbacks { margin-top: 16px; padding-top: 14px; border-top: 1px solid rgba(255,255,255,0.08); }
    .callbacks h2 { margin: 0 0 8px; font-size: 13px; text-transform: uppercase; letter-spacing: 0.1em; color: #d9b86c; }
    .callbacks ol { list-style: none; margin: 0; padding: 0; display: grid; gap: 8px; }
    .callbacks li { padding: 10px 12px; border-radius: 12px; background: rgba(255,255,255,0.05); font-size: 13px; }
    .callbacks .kind { font-weight: 700; text-transform: uppercase; letter-spacing: 0.06em; }
    .callbacks .status { float: right; color: #b7a9cc; }
    .callbacks .status.delivered { color: #7dffa8; } .callbacks .status.failed { color: #ff9c8a; }
    .callbacks pre { margin: 8px 0 0; padding: 8px; border-radius: 8px; background: #0c0716; color: #d8cfe8;
      font-size: 11px; white-space: pre-wrap; word-break: break-all; }
    .session { margin-top: 18px; font-size: 11px; color: #6f6385; text-align: center; word-break: break-all; }
    .red { color: #c0392b; } .gold { color: #d4a017; } .blue { color: #2e86c1; } .green { color: #1e8449; } .purple { color: #7d3c98; }
  </style>
</head>
<body>
${body}
</body>
</html>`

const gamePage = (session: GameSession, nonce: string) => {
  const game = gameByCode.get(session.game_code)
  const title = game?.name ?? session.game_code
  const currency = storedCurrency(session.currency)
  // Symbols every system font has, coloured here rather than relying on emoji fonts (by class: the page's
  // policy allows no style attribute).
  const symbols = [
    `<span class="red">7</span>`,
    `<span class="gold">★</span>`,
    `<span class="blue">♦</span>`,
    `<span class="red">♥</span>`,
    `<span class="green">♣</span>`,
    `<span class="purple">$</span>`
  ]
  // Three different symbols to start with: the page should not open on what looks like a jackpot.
  const first = hashOf(session.id) % symbols.length
  const reels = [0, 1, 2].map((i) => symbols[(first + i * 2) % symbols.length])
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
        <div class="balance" id="balance">${escapeHtml(formatMinor(session.balance, currency))} ${
      escapeHtml(currency.code)
    }</div>
      </div>
    </div>
    <div class="reels" aria-label="reels">${reels.map((symbol) => `<div class="reel">${symbol}</div>`).join("")}</div>
    <div class="controls">
      <select id="stake" aria-label="Stake">${
      // The stakes the currency's minor unit can hold (half a yen is no stake).
      sandboxStakes.filter((stake) => minorOf(String(stake), currency) !== undefined).map((stake) =>
        `<option value="${stake}"${stake === 1 ? " selected" : ""}>${
          escapeHtml(formatMinor(minorOf(String(stake), currency)!, currency))
        }</option>`
      ).join("")}</select>
      <button id="spin" type="button">Spin</button>
    </div>
    <div class="actions" aria-label="Wallet calls to try">
      <button id="refund" type="button" disabled title="Refund: the whole round undone">Refund the last round</button>
      <button id="rollback" type="button" disabled title="Rollback: the round's stake given back">Roll back the last bet</button>
      <button id="late-win" type="button" disabled title="A win on the last round, after it">Late win</button>
      <button id="refused-bet" type="button" title="A stake a unit above the balance">Bet the wallet refuses</button>
    </div>
    <p class="result" id="result">Each spin is a wallet call: the stake is taken from the operator's wallet, the win paid back.</p>
    <p class="note">Sandbox casino: a demo game launched through the Partner Aggregator API.</p>
    <section class="callbacks" aria-live="polite">
      <h2>Signed callbacks to the operator</h2>
      <ol id="callbacks"></ol>
    </section>
    <div class="session">session ${escapeHtml(session.id)} · user ${session.user_code} · ${
      escapeHtml(session.lang)
    }</div>
  </section>
</main>
<script nonce="${nonce}">
  const session = ${scriptJson(session.id)};
  const symbols = ${scriptJson(symbols)};
  const byId = (id) => document.getElementById(id);
  const newline = String.fromCharCode(10);
  // Amounts come as the wallet protocol writes them: a number up to 3 decimals, a decimal string beyond.
  const currency = ${scriptJson({ code: currency.code, exponent: currency.exponent })};
  const money = (n) => (typeof n === "string" ? n : n.toFixed(currency.exponent)) + " " + currency.code;
  const el = (tag, className, text) => {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  };
  async function showCallbacks() {
    const response = await fetch("/sandbox/casino/play/" + encodeURIComponent(session) + "/callbacks");
    if (!response.ok) return;
    const { callbacks } = await response.json();
    const list = byId("callbacks");
    list.replaceChildren(...callbacks.map((callback) => {
      const item = el("li");
      item.append(el("span", "kind", callback.kind + " "), el("span", "status " + callback.status, callback.status));
      item.append(el("div", "", callback.event_id));
      const headers = callback.received ? callback.received.headers : { "x-partner-event-id": callback.event_id };
      const lines = Object.entries(headers).map(([name, value]) => name + ": " + value);
      const answer = callback.received ? ["", "answer: " + JSON.stringify(callback.received.answer.body)] : [];
      item.append(el("pre", "", [...lines, "", JSON.stringify(callback.body, null, 2), ...answer].join(newline)));
      return item;
    }));
  }
  // The round the buttons act on: the last spin the wallet accepted.
  let lastRound = null;
  const roundButtons = ["refund", "rollback", "late-win"];
  // What each button's call did, when the wallet accepted it.
  const done = {
    refund: () => "Round refunded: its stake given back, its win taken back (a refund callback).",
    rollback: () => "Bet rolled back: its stake given back (a rollback callback).",
    "late-win": (answer) => "Late win of " + money(answer.win) + " paid on the last round (a win callback).",
    "refused-bet": () => "The wallet took the stake: it did not refuse it."
  };
  async function call(path, body) {
    const response = await fetch("/sandbox/casino/play/" + encodeURIComponent(session) + "/" + path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body)
    });
    const answer = await response.json();
    if (!response.ok) throw new Error(answer.message || "The call failed.");
    return answer;
  }
  async function play(button, run) {
    const result = byId("result");
    const buttons = ["spin", ...roundButtons, "refused-bet"].map(byId);
    buttons.forEach((b) => { b.disabled = true; });
    try {
      const answer = await run();
      byId("balance").textContent = money(answer.balance);
      await showCallbacks();
      setTimeout(showCallbacks, 1000);
    } catch (error) {
      result.className = "result refused";
      result.textContent = error.message;
    } finally {
      byId("spin").disabled = false;
      byId("refused-bet").disabled = false;
      roundButtons.forEach((id) => { byId(id).disabled = lastRound === null; });
    }
  }
  byId("spin").addEventListener("click", () => play(byId("spin"), async () => {
    const result = byId("result");
    const spin = await call("spin", { bet: Number(byId("stake").value) });
    document.querySelectorAll(".reel").forEach((reel, i) => { reel.innerHTML = symbols[spin.reels[i]]; });
    if (!spin.msg) lastRound = spin.round_id;
    result.className = "result " + (spin.msg ? "refused" : spin.win > 0 ? "win" : "");
    result.textContent = spin.msg
      ? spin.reason
      : spin.win > 0 ? "You won " + money(spin.win) + "!" : "No win this time.";
    return spin;
  }));
  for (const id of [...roundButtons, "refused-bet"]) {
    byId(id).addEventListener("click", () => play(byId(id), async () => {
      const result = byId("result");
      const body = id === "refused-bet" ? {} : { round_id: lastRound, win: Number(byId("stake").value) };
      const answer = await call(id, body);
      result.className = "result " + (answer.msg ? "refused" : id === "late-win" ? "win" : "");
      result.textContent = answer.msg ? answer.reason : done[id](answer);
      return answer;
    }));
  }
  showCallbacks();
</script>`,
    nonce
  )
}

const notFoundPage = (nonce: string) =>
  page(
    "Session not found · Sandbox casino",
    `<main class="table"><section class="content">
    <div class="provider">Sandbox casino</div>
    <h1>This game session does not exist.</h1>
    <p class="note">Sessions close after a while: launch the game again through POST /api/partner/v1/launch.</p>
  </section></main>`,
    nonce
  )

/** A page drawn with a fresh nonce, answered with the policy that names it. */
const htmlResponse = (draw: (nonce: string) => string, status: number) => {
  const nonce = randomBytes(16).toString("base64")
  return HttpServerResponse.text(draw(nonce), {
    status,
    contentType: "text/html; charset=utf-8",
    headers: {
      "content-security-policy": pagePolicy(nonce),
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer"
    }
  })
}

export const SandboxPages = HttpRouter.use(Effect.fnUntraced(function*(router) {
  const repo = yield* SandboxRepo
  const config = yield* SandboxConfig
  const players = yield* PartnerPlayers

  yield* router.add(
    "GET",
    "/sandbox/casino/play/:session",
    Effect.gen(function*() {
      const { session: id } = yield* HttpRouter.params
      const session = yield* openSession(id ?? "").pipe(
        Effect.provideService(SandboxRepo, repo),
        Effect.provideService(SandboxConfig, config)
      )
      if (Option.isNone(session)) return htmlResponse(notFoundPage, 404)
      // The balance shown is the player's latest known one (spins move it), not the one at launch.
      const player = yield* players.findByUserCode(session.value.user_code)
      const balance = Option.match(player, {
        onNone: () => session.value.balance,
        onSome: (p) => p.balance ?? session.value.balance
      })
      return htmlResponse((nonce) => gamePage({ ...session.value, balance }, nonce), 200)
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
        // Opened on its own, the picture is a document of this origin: it may run and load nothing.
        headers: { "cache-control": "public, max-age=86400", "content-security-policy": "default-src 'none'" }
      })
    })
  )
}))
