/** Names of the country codes sports providers use (ISO 3166 alpha-2, lowercase; BetsAPI adds a few of its own). */
const names: Readonly<Record<string, string>> = {
  ar: "Argentina",
  at: "Austria",
  au: "Australia",
  be: "Belgium",
  bg: "Bulgaria",
  bo: "Bolivia",
  br: "Brazil",
  ca: "Canada",
  ch: "Switzerland",
  cl: "Chile",
  cn: "China",
  co: "Colombia",
  cr: "Costa Rica",
  cy: "Cyprus",
  cz: "Czech Republic",
  de: "Germany",
  dk: "Denmark",
  ec: "Ecuador",
  eg: "Egypt",
  en: "England",
  es: "Spain",
  fi: "Finland",
  fr: "France",
  gb: "England",
  gr: "Greece",
  hr: "Croatia",
  hu: "Hungary",
  id: "Indonesia",
  ie: "Ireland",
  il: "Israel",
  in: "India",
  is: "Iceland",
  it: "Italy",
  jp: "Japan",
  kr: "South Korea",
  ma: "Morocco",
  mx: "Mexico",
  ng: "Nigeria",
  nl: "Netherlands",
  no: "Norway",
  nz: "New Zealand",
  pe: "Peru",
  pl: "Poland",
  pt: "Portugal",
  py: "Paraguay",
  ro: "Romania",
  rs: "Serbia",
  ru: "Russia",
  sa: "Saudi Arabia",
  sc: "Scotland",
  se: "Sweden",
  si: "Slovenia",
  sk: "Slovakia",
  tr: "Turkey",
  ua: "Ukraine",
  us: "USA",
  uy: "Uruguay",
  ve: "Venezuela",
  wa: "Wales",
  za: "South Africa"
}

export const countryName = (code: string) => names[code.toLowerCase()] ?? code.toUpperCase()

/**
 * The codes a country reference means: every code of the country it names, whether it names it by a code or by
 * its name, any case (`en`, `gb` and `England` all mean en and gb). A code not in the table means itself only.
 */
export const countryCodesOf = (reference: string): ReadonlyArray<string> => {
  const wanted = reference.trim().toLowerCase()
  const name = (names[wanted] ?? wanted).toLowerCase()
  const codes = Object.entries(names).filter(([, known]) => known.toLowerCase() === name).map(([code]) => code)
  return /^[a-z]{2,3}$/.test(wanted) ? [...new Set([wanted, ...codes])] : codes
}

const regionNames = new Intl.DisplayNames(["en"], { type: "region" })
/** Codes Intl names that are not countries of ISO 3166-1 (groupings, private use, unknown). */
const notCountries = new Set(["EU", "EZ", "UN", "QO", "XA", "XB", "XK", "ZZ"])

/** Whether `code` is an ISO 3166-1 alpha-2 country code, upper-case ("BR"): one the runtime's ICU data names. */
export const isIsoCountry = (code: string): boolean =>
  /^[A-Z]{2}$/.test(code) && !notCountries.has(code) && regionNames.of(code) !== code
