import { Effect, Option } from "effect"
import * as Tokens from "../../operations/tokens.js"
import { implement } from "../concerns.js"
import { TokensGroup } from "../groups/tokens.js"
import { CurrentTokenPermissions } from "../middleware.js"
import { run } from "./run.js"

export const TokensHandlers = implement(TokensGroup, (handlers) =>
  handlers
    .handle("createToken", ({ payload }) =>
      Effect.flatMap(Effect.serviceOption(CurrentTokenPermissions), (granted) =>
        run((p) => Tokens.createToken(p, payload, Option.getOrUndefined(granted)))))
    .handle("listTokens", ({ query }) => run((p) => Tokens.listTokens(p, query)))
    .handle("getToken", ({ params }) => run((p) => Tokens.getToken(p, params.tokenId)))
    .handle("deleteToken", ({ params }) => run((p) => Tokens.deleteToken(p, params.tokenId))))
