import { Result } from "effect"
import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from "node:crypto"

/**
 * Hub88's request signatures (../shared/spec/hub88.md, section 2): RSA-SHA256 (PKCS#1 v1.5) over the raw body bytes,
 * base64, in the `X-Hub88-Signature` header. Both ways: the operator signs its Games API calls with its private key,
 * and verifies Hub88's Wallet API calls with Hub88's public key. Answers are not signed by either side. A signature
 * is always over the bytes sent or received, never over a re-serialised body.
 */
export const signatureHeader = "X-Hub88-Signature"

/** The header as node and effect's HTTP server give it: lower case. */
export const signatureHeaderKey = signatureHeader.toLowerCase()

/** The least RSA modulus this service accepts from either side (Hub88's examples make 2048-bit keys). */
export const minimumKeyBits = 2048

const bytesOf = (body: Uint8Array | string): Uint8Array =>
  typeof body === "string" ? new TextEncoder().encode(body) : body

/** The base64 RSA-SHA256 signature of a body with the operator's private key. */
export const signBody = (body: Uint8Array | string, privateKey: KeyObject): string =>
  sign("sha256", bytesOf(body), privateKey).toString("base64")

/** Standard base64, padded: what the header carries (no spaces, no URL alphabet). */
const base64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/**
 * Whether `signature` (the header's value; absent, empty or not base64 is no signature) is the sender's signature of
 * these exact bytes under its public key.
 */
export const verifyBody = (
  body: Uint8Array | string,
  signature: string | undefined,
  publicKey: KeyObject
): boolean => {
  const text = signature?.trim() ?? ""
  if (text === "" || !base64.test(text)) return false
  try {
    return verify("sha256", bytesOf(body), publicKey, Buffer.from(text, "base64"))
  } catch {
    return false
  }
}

/** PEM text as an environment variable may carry it: `\n` written as two characters, or CRLF line ends. */
export const unescapedPem = (text: string): string => text.replace(/\\r\\n|\\n/g, "\n").replace(/\r\n/g, "\n").trim()

const modulusBits = (key: KeyObject): number => key.asymmetricKeyDetails?.modulusLength ?? 0

/**
 * The operator's private key from PEM text (PKCS#8 `BEGIN PRIVATE KEY` or PKCS#1 `BEGIN RSA PRIVATE KEY`, not
 * encrypted), or why not. The message never quotes the text.
 */
export const privateKeyOf = (text: string): Result.Result<KeyObject, string> => {
  const pem = unescapedPem(text)
  if (!/^-----BEGIN (RSA )?PRIVATE KEY-----/.test(pem)) {
    return Result.fail(
      "is not an unencrypted RSA private key in PEM (-----BEGIN PRIVATE KEY----- or -----BEGIN RSA PRIVATE KEY-----)"
    )
  }
  return rsaKeyOf(() => createPrivateKey({ key: pem, format: "pem" }), "private")
}

/** Hub88's public key from PEM text (SPKI, `BEGIN PUBLIC KEY`), or why not. */
export const publicKeyOf = (text: string): Result.Result<KeyObject, string> => {
  const pem = unescapedPem(text)
  if (/^-----BEGIN (RSA |ENCRYPTED )?PRIVATE KEY-----/.test(pem)) {
    return Result.fail("is a private key: it must be Hub88's public key (-----BEGIN PUBLIC KEY-----)")
  }
  if (!pem.startsWith("-----BEGIN PUBLIC KEY-----")) {
    return Result.fail("is not a public key in SPKI PEM (-----BEGIN PUBLIC KEY-----)")
  }
  return rsaKeyOf(() => createPublicKey({ key: pem, format: "pem" }), "public")
}

/** A key read by `read`, kept only when it is an RSA key of Hub88's size; or why not. */
const rsaKeyOf = (read: () => KeyObject, kind: "private" | "public"): Result.Result<KeyObject, string> => {
  let key: KeyObject
  try {
    key = read()
  } catch {
    return Result.fail(`could not be read as a PEM ${kind} key (damaged or truncated text)`)
  }
  if (key.asymmetricKeyType !== "rsa") return Result.fail(`is a ${key.asymmetricKeyType} key, not an RSA key`)
  if (modulusBits(key) < minimumKeyBits) {
    return Result.fail(`is a ${modulusBits(key)}-bit RSA key; Hub88 keys have at least ${minimumKeyBits} bits`)
  }
  return Result.succeed(key)
}

/** Whether two keys are halves of one pair or one public key (their SPKI encodings are equal). */
export const samePublicKey = (a: KeyObject, b: KeyObject): boolean => {
  const spki = (key: KeyObject) =>
    (key.type === "private" ? createPublicKey(key) : key).export({ type: "spki", format: "der" })
  return spki(a).equals(spki(b))
}
