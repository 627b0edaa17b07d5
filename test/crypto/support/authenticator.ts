import { createHash, generateKeyPairSync, sign, type KeyObject } from "node:crypto"
import { encodeCbor } from "./cbor-encode.js"

/**
 * A software WebAuthn authenticator: what a browser plus platform authenticator
 * produce, without either. Signatures come from OpenSSL, so about half are high-S.
 */
export const b64u = (bytes: Uint8Array): string => Buffer.from(bytes).toString("base64url")
export const sha256 = (bytes: Uint8Array): Uint8Array => new Uint8Array(createHash("sha256").update(bytes).digest())
const text = (value: string): Uint8Array => new TextEncoder().encode(value)

export const FLAGS = { UP: 0x01, UV: 0x04, BE: 0x08, BS: 0x10, AT: 0x40, ED: 0x80 } as const

export interface SoftwareCredential {
  readonly id: Uint8Array
  readonly privateKey: KeyObject
  readonly x: Uint8Array
  readonly y: Uint8Array
  readonly uncompressedHex: string
  readonly cose: Uint8Array<ArrayBuffer>
}

export const createCredential = (id?: Uint8Array): SoftwareCredential => {
  const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" })
  const jwk = publicKey.export({ format: "jwk" })
  const x = new Uint8Array(Buffer.from(jwk.x ?? "", "base64url"))
  const y = new Uint8Array(Buffer.from(jwk.y ?? "", "base64url"))
  const cose = encodeCbor(
    new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, x],
      [-3, y]
    ])
  )
  return {
    id: id ?? new Uint8Array(createHash("sha256").update(x).digest()).slice(0, 20),
    privateKey,
    x,
    y,
    uncompressedHex: `04${Buffer.from(x).toString("hex")}${Buffer.from(y).toString("hex")}`,
    cose
  }
}

export const authenticatorData = (params: {
  readonly rpId: string
  readonly flags: number
  readonly counter: number
  readonly attested?: { readonly credential: SoftwareCredential; readonly cose?: Uint8Array }
  readonly extensions?: Uint8Array
}): Uint8Array => {
  const counter = Buffer.alloc(4)
  counter.writeUInt32BE(params.counter)
  const parts: Uint8Array[] = [sha256(text(params.rpId)), Uint8Array.of(params.flags), counter]
  if (params.attested !== undefined) {
    const { credential } = params.attested
    const idLength = Buffer.alloc(2)
    idLength.writeUInt16BE(credential.id.length)
    parts.push(new Uint8Array(16), idLength, credential.id, params.attested.cose ?? credential.cose)
  }
  if (params.extensions !== undefined) parts.push(params.extensions)
  return new Uint8Array(Buffer.concat(parts))
}

export const clientDataJson = (params: {
  readonly type: string
  readonly challenge: string
  readonly origin: string
  readonly extra?: Record<string, unknown>
}): Uint8Array =>
  text(JSON.stringify({ type: params.type, challenge: params.challenge, origin: params.origin, crossOrigin: false, ...params.extra }))

export const signAssertion = (credential: SoftwareCredential, authData: Uint8Array, clientData: Uint8Array): Uint8Array =>
  new Uint8Array(sign("sha256", Buffer.concat([authData, sha256(clientData)]), credential.privateKey))

export interface AssertionParts {
  readonly credentialId: string
  readonly clientDataJson: string
  readonly authenticatorData: string
  readonly signature: string
}

export const makeAssertion = (params: {
  readonly credential: SoftwareCredential
  readonly rpId: string
  readonly origin: string
  readonly challenge: string
  readonly counter: number
  readonly flags?: number
  readonly type?: string
}): AssertionParts => {
  const authData = authenticatorData({ rpId: params.rpId, flags: params.flags ?? FLAGS.UP | FLAGS.UV, counter: params.counter })
  const clientData = clientDataJson({ type: params.type ?? "webauthn.get", challenge: params.challenge, origin: params.origin })
  return {
    credentialId: b64u(params.credential.id),
    clientDataJson: b64u(clientData),
    authenticatorData: b64u(authData),
    signature: b64u(signAssertion(params.credential, authData, clientData))
  }
}

export const makeRegistration = (params: {
  readonly credential: SoftwareCredential
  readonly rpId: string
  readonly origin: string
  readonly challenge: string
  readonly counter?: number
  readonly flags?: number
  readonly fmt?: string
  readonly attStmt?: Map<string, Uint8Array>
  readonly cose?: Uint8Array
}): { readonly credentialId: string; readonly clientDataJson: string; readonly attestationObject: string } => {
  const authData = authenticatorData({
    rpId: params.rpId,
    flags: params.flags ?? FLAGS.UP | FLAGS.UV | FLAGS.AT,
    counter: params.counter ?? 0,
    attested: params.cose === undefined ? { credential: params.credential } : { credential: params.credential, cose: params.cose }
  })
  const attestationObject = encodeCbor(
    new Map<string, string | Uint8Array | Map<string, Uint8Array>>([
      ["fmt", params.fmt ?? "none"],
      ["attStmt", params.attStmt ?? new Map()],
      ["authData", authData]
    ])
  )
  return {
    credentialId: b64u(params.credential.id),
    clientDataJson: b64u(clientDataJson({ type: "webauthn.create", challenge: params.challenge, origin: params.origin })),
    attestationObject: b64u(attestationObject)
  }
}
