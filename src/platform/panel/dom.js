// @ts-check
// Small DOM helpers. Every value is put in the page as text (text nodes, textContent, attribute values),
// never as markup, so nothing a partner, a player or an upstream sent can become HTML.

/** @typedef {Node | string | number | boolean | null | undefined} Leaf a node, or text */
/** @typedef {Leaf | ReadonlyArray<Leaf | ReadonlyArray<Leaf | ReadonlyArray<Leaf>>>} Child what may go in an element: nodes or text, in lists as deep as pages nest them */
/** @typedef {{ [attribute: string]: unknown, on?: Record<string, EventListener> }} Attrs attributes (false, null, undefined: absent) */

/**
 * h("tag.class", {attributes, on: {event: handler}}, ...children): children are nodes or text.
 * @param {string} spec
 * @param {Attrs | null} [attrs]
 * @param {...Child} children
 * @returns {HTMLElement}
 */
export function h(spec, attrs = {}, ...children) {
  const [tag, ...classes] = spec.split(".")
  const el = document.createElement(tag || "div")
  if (classes.length > 0) el.className = classes.join(" ")
  for (const [key, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue
    if (key === "on") {
      for (const [event, handler] of Object.entries(/** @type {Record<string, EventListener>} */ (value))) {
        el.addEventListener(event, handler)
      }
    } else if (key === "class") el.className = [el.className, value].filter(Boolean).join(" ")
    else if (value === true) el.setAttribute(key, "")
    else el.setAttribute(key, String(value))
  }
  append(el, children)
  return el
}

/**
 * @param {Element} el
 * @param {Array<Child>} children
 */
function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue
    el.append(child instanceof Node ? child : document.createTextNode(String(child)))
  }
}

/**
 * Replaces an element's content.
 * @template {Element} E
 * @param {E} el
 * @param {...Child} children
 * @returns {E}
 */
export function fill(el, ...children) {
  el.replaceChildren()
  append(el, children)
  return el
}

let fieldIds = 0

/**
 * A labelled form field; `input` attributes go on the control (`type: "select"` with `options`: a select).
 * @param {string} label
 * @param {Attrs & { id?: string, type?: string, value?: unknown, options?: ReadonlyArray<readonly [string, string]> }} [attrs]
 * @param {string} [hint]
 */
export function field(label, attrs = {}, hint) {
  const id = attrs.id ?? `field-${++fieldIds}`
  const control = attrs.type === "select"
    ? h(
      "select",
      { ...attrs, type: undefined, options: undefined, id },
      (attrs.options ?? []).map(([value, text]) =>
        h("option", { value, selected: String(attrs.value ?? "") === value }, text)
      )
    )
    : h("input", { ...attrs, id })
  const hintId = hint === undefined ? undefined : `${id}-hint`
  if (hintId !== undefined) control.setAttribute("aria-describedby", hintId)
  return h(
    "div.field",
    {},
    h("label", { for: id }, label),
    control,
    hint === undefined ? null : h("small", { id: hintId }, hint)
  )
}

/**
 * An amount beside its currency's code (`12.5 EUR`, `0.00000001 BTC`), exactly as the API wrote it: a number up to 3
 * decimals or a decimal string beyond, never re-read as a float nor rounded. Null (pending, shadow): a dash.
 * @param {number | string | null | undefined} amount
 * @param {string} currency
 */
export function money(amount, currency) {
  if (amount === null || amount === undefined) return "—"
  return h("span.money", { "data-currency": currency }, `${String(amount)} ${currency}`)
}

/**
 * The ledger's filters both panels search transactions with: currency, kind, status and a range of days, as the URL
 * gives them.
 * @param {URLSearchParams} params
 */
export const ledgerFilterFields = (params) => [
  field(
    "Currency",
    {
      name: "currency",
      value: params.get("currency") ?? "",
      placeholder: "Any",
      autocomplete: "off",
      autocapitalize: "off",
      spellcheck: "false",
      maxlength: 10
    },
    "Its code, case-sensitive: BRL, JPY, mBTC"
  ),
  field("Kind", {
    type: "select",
    name: "kind",
    value: params.get("kind") ?? "",
    options: [["", "Any"], ["bet", "bet"], ["refund", "refund"]]
  }),
  field("Status", {
    type: "select",
    name: "status",
    value: params.get("status") ?? "",
    options: [["", "Any"], ["pending", "pending"], ["applied", "applied"], ["refused", "refused"]]
  }),
  field("From", { name: "from", type: "date", value: params.get("from") ?? "" }),
  field("To", { name: "to", type: "date", value: params.get("to") ?? "" })
]

/**
 * A table with a caption (for screen readers), header cells and rows of cells.
 * @param {string} caption
 * @param {ReadonlyArray<string>} headers
 * @param {ReadonlyArray<ReadonlyArray<Child>>} rows
 */
export function table(caption, headers, rows, empty = "Nothing to show.") {
  if (rows.length === 0) return h("p.empty", {}, empty)
  return h(
    "div.table-wrap",
    {},
    h(
      "table",
      {},
      h("caption", {}, caption),
      h("thead", {}, h("tr", {}, headers.map((text) => h("th", { scope: "col" }, text)))),
      h(
        "tbody",
        {},
        rows.map((cells) => h("tr", {}, cells.map((cell, i) => h("td", { "data-label": headers[i] }, cell))))
      )
    )
  )
}

/**
 * A message region read out by screen readers when it changes.
 * @param {"ok" | "error" | "info"} kind
 * @param {...Child} text
 */
export function notice(kind, ...text) {
  return h(`p.notice.${kind}`, { role: kind === "error" ? "alert" : "status" }, ...text)
}

/** @param {unknown} value */
export function json(value) {
  return h("pre.json", {}, JSON.stringify(value, null, 2))
}

/**
 * A moment as both panels write it, everywhere: `2026-11-28 21:05:09 UTC` (UTC, as the API's ISO dates and the
 * partner's logs are; never the browser's own zone, which would make two people read two times). Text for a
 * sentence; `when` for a table or a list.
 * @param {string} iso
 */
export const whenText = (iso) => new Date(iso).toISOString().replace("T", " ").slice(0, 19) + " UTC"

/**
 * A moment (whenText), marked up with its ISO value; "—" for none.
 * @param {string | null | undefined} iso
 */
export function when(iso) {
  if (iso === null || iso === undefined) return "—"
  return h("time", { datetime: iso, title: iso }, whenText(iso))
}

/**
 * Form values as an object of trimmed strings.
 * @param {HTMLElement} form a form (as h("form") makes it)
 * @returns {Record<string, string>}
 */
export function formValues(form) {
  return Object.fromEntries(
    [...new FormData(/** @type {HTMLFormElement} */ (form)).entries()].map((
      [key, value]
    ) => [key, String(value).trim()])
  )
}

/**
 * A secret shown this once (a token, a webhook secret, an invitation link), with a way to copy it.
 * @param {string} title
 * @param {ReadonlyArray<readonly [string, string, string]>} entries label, value and its `data-secret` name
 * @param {string} [advice] what to do with it
 */
export function secretBox(
  title,
  entries,
  advice = "Shown only this once: copy it now and hand it to the partner over a safe channel."
) {
  return h(
    "section.card.secret",
    { "aria-labelledby": "secret-title" },
    h("h2", { id: "secret-title" }, title),
    h("p", {}, advice),
    h(
      "dl",
      {},
      entries.map(([label, value, testId]) => [
        h("dt", {}, label),
        h(
          "dd",
          {},
          h("code", { "data-secret": testId }, value),
          h(
            "button.secondary.small",
            { type: "button", on: { click: () => navigator.clipboard?.writeText(value) } },
            "Copy"
          )
        )
      ])
    )
  )
}

/** An entry's environment, as a badge: Live or Test. */
export const environmentBadge = (environment) =>
  h(
    `span.badge.environment.${environment}`,
    { "data-environment": environment },
    environment === "test" ? "Test" : "Live"
  )

/** Labelled values, as a definition list. */
export const facts = (pairs) =>
  h("dl.facts", {}, pairs.map(([label, value]) => [h("dt", {}, label), h("dd", {}, value)]))
