/** `Acme Bets Ltda.` -> `acme-bets-ltda`: lowercase ASCII letters, digits and single dashes. */
export const slugify = (name: string, fallback = "item") =>
  name.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase().replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "").slice(0, 100).replace(/-+$/, "") || fallback
