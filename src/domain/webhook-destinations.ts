/**
 * Where webhooks may go (docs/webhooks.md#destinations): the operator's list of
 * destinations (`webhookDestinations` in the platforms file, `--webhook-destinations`),
 * the class of an IP address, and whether an address may receive a platform's webhooks.
 *
 * A list names `loopback`, `public`, `private` and CIDR ranges (or single addresses);
 * an address is allowed when an entry covers it. Some addresses are never allowed,
 * whatever the list: link-local, cloud metadata, unspecified, multicast and reserved.
 * Defaults: a sandbox platform `loopback, public`; a production platform `public`.
 *
 * Pure (node:net's BlockList and isIP only): the HTTP sender resolves names and checks
 * every address it would connect to (src/adapters/webhook-http.ts).
 */
import { BlockList, isIP } from "node:net"

/** What an address is, for the destination rules. */
export type AddressClass =
  | "loopback"
  | "private"
  | "special"
  | "public"
  | "link-local"
  | "metadata"
  | "unspecified"
  | "multicast"
  | "reserved"

/** The rule that refused a destination (the `rule` of the 400 at PATCH /config, and in a failed attempt's error). */
export type DestinationRule =
  | "LINK_LOCAL"
  | "CLOUD_METADATA"
  | "UNSPECIFIED"
  | "MULTICAST"
  | "RESERVED"
  | "LOOPBACK_NOT_ALLOWED"
  | "PRIVATE_NOT_ALLOWED"
  | "NON_PUBLIC_NOT_ALLOWED"
  | "PUBLIC_NOT_ALLOWED"
  | "NOT_LOOKED_UP"

export interface DestinationRefusal {
  readonly rule: DestinationRule
  /** One sentence naming the host (and the address it resolved to) and the rule. */
  readonly message: string
}

type Family = "ipv4" | "ipv6"
interface Range {
  readonly cidr: string
  readonly class: AddressClass
}

/** Cloud metadata services, checked before the ranges they sit in (AWS, GCP, Azure, OpenStack; AWS IPv6; Alibaba). */
export const METADATA_ADDRESSES: ReadonlyArray<string> = ["169.254.169.254", "fd00:ec2::254", "100.100.100.200"]
/** Names of cloud metadata services: refused before any lookup. */
export const METADATA_NAMES: ReadonlyArray<string> = ["metadata", "metadata.google.internal", "metadata.goog", "instance-data", "instance-data.ec2.internal"]

/** Classes never allowed, whatever a list says. */
const NEVER: ReadonlySet<AddressClass> = new Set(["link-local", "metadata", "unspecified", "multicast", "reserved"])

/** The ranges, most specific first within a family (the first match wins). */
export const RANGES: ReadonlyArray<Range> = [
  { cidr: "0.0.0.0/8", class: "unspecified" },
  { cidr: "127.0.0.0/8", class: "loopback" },
  { cidr: "169.254.0.0/16", class: "link-local" },
  { cidr: "10.0.0.0/8", class: "private" },
  { cidr: "172.16.0.0/12", class: "private" },
  { cidr: "192.168.0.0/16", class: "private" },
  { cidr: "100.64.0.0/10", class: "private" },
  { cidr: "192.0.0.0/24", class: "special" },
  { cidr: "192.0.2.0/24", class: "special" },
  { cidr: "198.18.0.0/15", class: "special" },
  { cidr: "198.51.100.0/24", class: "special" },
  { cidr: "203.0.113.0/24", class: "special" },
  { cidr: "224.0.0.0/4", class: "multicast" },
  { cidr: "240.0.0.0/4", class: "reserved" },
  { cidr: "::/128", class: "unspecified" },
  { cidr: "::1/128", class: "loopback" },
  { cidr: "fe80::/10", class: "link-local" },
  { cidr: "fec0::/10", class: "private" },
  { cidr: "fc00::/7", class: "private" },
  { cidr: "ff00::/8", class: "multicast" },
  { cidr: "2001:db8::/32", class: "special" },
  { cidr: "100::/64", class: "special" },
  // IPv4-compatible addresses (deprecated) other than :: and ::1 above.
  { cidr: "::/96", class: "reserved" }
]

const DESCRIPTION: Readonly<Record<AddressClass, string>> = {
  loopback: "a loopback address (127.0.0.0/8, ::1)",
  private: "in a private range (10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, 100.64.0.0/10, fc00::/7)",
  special: "in a special-purpose range (documentation, benchmarking, 192.0.0.0/24)",
  public: "a public address",
  "link-local": "link-local (169.254.0.0/16, fe80::/10)",
  metadata: "a cloud metadata address",
  unspecified: "unspecified (0.0.0.0/8, ::)",
  multicast: "multicast (224.0.0.0/4, ff00::/8)",
  reserved: "reserved (240.0.0.0/4, IPv4-compatible IPv6)"
}

const NEVER_RULE: Readonly<Partial<Record<AddressClass, DestinationRule>>> = {
  "link-local": "LINK_LOCAL",
  metadata: "CLOUD_METADATA",
  unspecified: "UNSPECIFIED",
  multicast: "MULTICAST",
  reserved: "RESERVED"
}

const familyOf = (address: string): Family | undefined => {
  const v = isIP(address)
  return v === 4 ? "ipv4" : v === 6 ? "ipv6" : undefined
}

/** `a.b.c.d/n` or `x::y/n` (or a single address) as a subnet, or undefined when it is not one. */
const subnetOf = (text: string): { readonly network: string; readonly prefix: number; readonly family: Family } | undefined => {
  const [network = "", prefixText, ...rest] = text.split("/")
  const family = familyOf(network)
  if (family === undefined || rest.length > 0) return undefined
  const max = family === "ipv4" ? 32 : 128
  if (prefixText === undefined) return { network, prefix: max, family }
  if (!/^\d{1,3}$/.test(prefixText)) return undefined
  const prefix = Number(prefixText)
  return prefix <= max ? { network, prefix, family } : undefined
}

const blockListOf = (cidrs: ReadonlyArray<string>): BlockList => {
  const list = new BlockList()
  for (const cidr of cidrs) {
    const s = subnetOf(cidr)
    if (s !== undefined) list.addSubnet(s.network, s.prefix, s.family)
  }
  return list
}

const metadataList = blockListOf(METADATA_ADDRESSES)
const rangeLists = RANGES.map((r) => ({ ...r, list: blockListOf([r.cidr]), family: subnetOf(r.cidr)!.family }))

/** The 8 hextets of an IPv6 address (isIP already said it is one; a zone `%…` is dropped). */
const hextetsOf = (address: string): ReadonlyArray<number> => {
  let text = address.split("%")[0]!.toLowerCase()
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text)
  if (dotted !== null) {
    const [a, b, c, d] = dotted[1]!.split(".").map(Number) as [number, number, number, number]
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head = "", tail] = text.split("::")
  const parse = (part: string) => (part === "" ? [] : part.split(":").map((h) => parseInt(h, 16)))
  const left = parse(head)
  const right = tail === undefined ? [] : parse(tail)
  return [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right]
}

const ipv4Of = (high: number, low: number): string => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`

/**
 * The address to judge: an IPv4 address embedded in IPv6 (mapped `::ffff:a.b.c.d`, NAT64
 * `64:ff9b::/96`, 6to4 `2002::/16`) as that IPv4 address, else the address itself.
 */
export const normalizeAddress = (address: string): string => {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address
  if (familyOf(bare) !== "ipv6") return bare
  const h = hextetsOf(bare)
  const zeros = (from: number, to: number) => h.slice(from, to).every((x) => x === 0)
  if (zeros(0, 5) && h[5] === 0xffff) return ipv4Of(h[6]!, h[7]!)
  if (h[0] === 0x64 && h[1] === 0xff9b && zeros(2, 6)) return ipv4Of(h[6]!, h[7]!)
  if (h[0] === 0x2002) return ipv4Of(h[1]!, h[2]!)
  return bare.split("%")[0]!.toLowerCase()
}

/** The class of an IP address (after `normalizeAddress`); undefined when it is not an IP address. */
export const classOf = (address: string): AddressClass | undefined => {
  const normal = normalizeAddress(address)
  const family = familyOf(normal)
  if (family === undefined) return undefined
  if (metadataList.check(normal, family)) return "metadata"
  for (const r of rangeLists) if (r.family === family && r.list.check(normal, family)) return r.class
  return "public"
}

/** A parsed list of destinations. */
export interface DestinationPolicy {
  /** The list as given (normalised), for messages. */
  readonly entries: ReadonlyArray<string>
  readonly loopback: boolean
  readonly public: boolean
  readonly private: boolean
  readonly ranges: BlockList
  /** Only loopback is allowed: names other than `localhost` are refused without a lookup. */
  readonly loopbackOnly: boolean
}

export const DEFAULT_SANDBOX_DESTINATIONS: ReadonlyArray<string> = ["loopback", "public"]
export const DEFAULT_PRODUCTION_DESTINATIONS: ReadonlyArray<string> = ["public"]

/** What is wrong with one entry of a list, or undefined when it is a valid entry. */
export const destinationEntryProblem = (entry: string): string | undefined => {
  const e = entry.trim().toLowerCase()
  if (e === "loopback" || e === "public" || e === "private") return undefined
  const s = subnetOf(e)
  if (s === undefined) return `${JSON.stringify(entry)} is not loopback, public, private or an IP range such as 10.20.0.0/16`
  const cls = classOf(s.network)
  if (cls !== undefined && NEVER.has(cls)) return `${entry} is ${DESCRIPTION[cls]}: webhooks are never sent there, whatever the list says`
  return undefined
}

/** A list of destinations, or a message saying what is wrong with it (empty, or an entry). */
export const parseDestinations = (list: ReadonlyArray<string>): DestinationPolicy | string => {
  const entries = list.map((e) => e.trim().toLowerCase()).filter((e) => e !== "")
  if (entries.length === 0) return "must name at least one destination (loopback, public, private or an IP range)"
  for (const e of entries) {
    const problem = destinationEntryProblem(e)
    if (problem !== undefined) return problem
  }
  const cidrs = entries.filter((e) => e !== "loopback" && e !== "public" && e !== "private")
  const has = (k: string) => entries.includes(k)
  return {
    entries,
    loopback: has("loopback"),
    public: has("public"),
    private: has("private"),
    ranges: blockListOf(cidrs),
    loopbackOnly: has("loopback") && entries.length === 1
  }
}

/** A list known to be valid (the defaults, lists validated at start) as a policy. */
export const policyOf = (list: ReadonlyArray<string>): DestinationPolicy => {
  const policy = parseDestinations(list)
  if (typeof policy === "string") throw new Error(`webhook destinations ${list.join(",")}: ${policy}`)
  return policy
}

export const SANDBOX_POLICY = policyOf(DEFAULT_SANDBOX_DESTINATIONS)
export const PRODUCTION_POLICY = policyOf(DEFAULT_PRODUCTION_DESTINATIONS)
export const LOOPBACK_POLICY = policyOf(["loopback"])

/** A comma-separated list (`--webhook-destinations loopback,public,10.20.0.0/16`). */
export const splitDestinations = (text: string): ReadonlyArray<string> => text.split(",").map((e) => e.trim()).filter((e) => e !== "")

const listText = (policy: DestinationPolicy) => policy.entries.join(", ")

/**
 * Why `address` (what `host` resolved to, or `host` itself when it is an address) may
 * not receive webhooks under `policy`; undefined when it may.
 */
export const addressRefusal = (address: string, policy: DestinationPolicy, host: string = address): DestinationRefusal | undefined => {
  const normal = normalizeAddress(address)
  const cls = classOf(normal)
  const family = familyOf(normal)
  const what = host === address || `[${address}]` === host ? `${host}` : `${host} resolves to ${address}, which`
  if (cls === undefined || family === undefined) return { rule: "RESERVED", message: `${what} is not an IP address` }
  const never = NEVER_RULE[cls]
  if (never !== undefined) return { rule: never, message: `${what} is ${DESCRIPTION[cls]}: webhooks are never sent there` }
  if (policy.ranges.check(normal, family)) return undefined
  if (cls === "loopback" && policy.loopback) return undefined
  if (cls === "private" && policy.private) return undefined
  if (cls === "public" && policy.public) return undefined
  const rule: DestinationRule = cls === "loopback"
    ? "LOOPBACK_NOT_ALLOWED"
    : cls === "private"
    ? "PRIVATE_NOT_ALLOWED"
    : cls === "special"
    ? "NON_PUBLIC_NOT_ALLOWED"
    : "PUBLIC_NOT_ALLOWED"
  return {
    rule,
    message: policy.loopbackOnly
      ? `${what} is not a loopback destination (${DESCRIPTION[cls]}; this platform's webhook destinations: loopback)`
      : `${what} is ${DESCRIPTION[cls]}, outside this platform's webhook destinations (${listText(policy)})`
  }
}

/** A host name as compared: lower case, without a final dot or IPv6 brackets. */
export const hostKey = (host: string): string => {
  const h = host.toLowerCase().replace(/\.$/, "")
  return h.startsWith("[") && h.endsWith("]") ? h.slice(1, -1) : h
}

/** `localhost` and names under it (RFC 6761: loopback, never looked up). */
export const isLocalhostName = (host: string): boolean => {
  const h = hostKey(host)
  return h === "localhost" || h.endsWith(".localhost")
}

/** Names under `.invalid` (RFC 6761: never resolve). */
export const isInvalidName = (host: string): boolean => {
  const h = hostKey(host)
  return h === "invalid" || h.endsWith(".invalid")
}

/**
 * What can be said of `host` before any lookup: refused (an address or a metadata name
 * the policy refuses; a name under a loopback-only policy), `{ addresses }` to check
 * (an address; `localhost`), or `"lookup"` (a name to resolve).
 */
export const hostVerdict = (
  host: string,
  policy: DestinationPolicy
): { readonly _tag: "Refused"; readonly refusal: DestinationRefusal } | { readonly _tag: "Addresses"; readonly addresses: ReadonlyArray<string> } | { readonly _tag: "Lookup" } => {
  const h = hostKey(host)
  if (isIP(h) !== 0) {
    const refusal = addressRefusal(h, policy)
    return refusal === undefined ? { _tag: "Addresses", addresses: [h] } : { _tag: "Refused", refusal }
  }
  if (METADATA_NAMES.includes(h)) return { _tag: "Refused", refusal: { rule: "CLOUD_METADATA", message: `${h} is a cloud metadata name: webhooks are never sent there` } }
  if (isLocalhostName(h)) {
    const refusal = addressRefusal("127.0.0.1", policy, h)
    return refusal === undefined ? { _tag: "Addresses", addresses: ["127.0.0.1", "::1"] } : { _tag: "Refused", refusal }
  }
  if (policy.loopbackOnly) {
    return {
      _tag: "Refused",
      refusal: { rule: "NOT_LOOKED_UP", message: `${h} is not a loopback destination (this platform's webhook destinations: loopback; a name other than localhost is not looked up)` }
    }
  }
  return { _tag: "Lookup" }
}
