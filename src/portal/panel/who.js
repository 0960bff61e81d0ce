// @ts-check
// Who is logged in to the portal, and what their role lets them change (the role matrix of src/domain/PartnerUser.ts:
// a viewer reads, a developer also changes tokens and webhooks, an owner also manages users). The API refuses
// anything more whatever the page shows; the page only leaves out what would be refused.

/** @type {{ user: { email: string, role: "owner" | "developer" | "viewer" } | null, partner: { name: string, slug: string } | null }} */
export const who = { user: null, partner: null }

const rank = { viewer: 0, developer: 1, owner: 2 }

/**
 * Whether the user's role reaches `needed`.
 * @param {"developer" | "owner"} needed
 */
export const may = (needed) => who.user !== null && rank[who.user.role] >= rank[needed]

/**
 * What a user who may not change something reads instead of the form.
 * @param {string} what
 */
export const readOnly = (what) => `Your role (${who.user?.role ?? "none"}) can read but not change ${what}.`

/** The two environments, as the portal names them. */
/** @type {Array<["live" | "test", string]>} */
export const environments = [["live", "Live"], ["test", "Test"]]

/** How long the old token or webhook secret stays valid beside the new one: the choices (hours; "" is now). */
export const overlapChoices = /** @type {const} */ ([
  ["", "Stops now"],
  ["1", "1 hour"],
  ["6", "6 hours"],
  ["24", "24 hours"],
  ["72", "3 days"],
  ["168", "7 days"]
])
