import { Effect } from "effect"
import * as Tokens from "../../operations/tokens.js"
import { group } from "../concerns.js"
import { run } from "./run.js"

export const TokensHandlers = group("tokens", (handlers) =>
  Effect.sync(() =>
    handlers
      .handle("createToken", ({ payload }) => run((p) => Tokens.createToken(p, payload)))
      .handle("listTokens", ({ query }) => run((p) => Tokens.listTokens(p, query)))
      .handle("getToken", ({ params }) => run((p) => Tokens.getToken(p, params.tokenId)))
      .handle("deleteToken", ({ params }) => run((p) => Tokens.deleteToken(p, params.tokenId)))
  ))
