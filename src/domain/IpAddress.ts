/** IP addresses as numbers, for rules that look inside them (callback URLs, per-address limits). */

/**
 * The eight 16-bit words of a valid IPv6 address (as net.isIP accepts it,
 * a dotted IPv4 tail included); undefined for one with a zone (`%eth0`).
 */
export const ipv6Words = (address: string): ReadonlyArray<number> | undefined => {
  if (address.includes("%")) return undefined
  const dotted = /^(.*:)(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address)
  const text = dotted === null
    ? address
    : `${dotted[1]}${((Number(dotted[2]) << 8) | Number(dotted[3])).toString(16)}:${
      ((Number(dotted[4]) << 8) | Number(dotted[5])).toString(16)
    }`
  const parts = (part: string) => part === "" ? [] : part.split(":").map((word) => parseInt(word, 16))
  const [head, tail] = text.split("::")
  const before = parts(head)
  const after = tail === undefined ? [] : parts(tail)
  const words = tail === undefined
    ? before
    : [...before, ...Array<number>(8 - before.length - after.length).fill(0), ...after]
  return words.length === 8 ? words : undefined
}
