/** The HttpApi definition (contract, OpenAPI, typed client) and the reference server's routes. */
export * from "./api.js"
export * from "./app.js"
export { CurrentPlatform, ErrorBody, MAX_JSON_BODY_BYTES, PlatformAuth, RequestGuard } from "./middleware.js"
export { constantTimeEqual as constantTimeStringEqual, parseBasicAuthorization, PlatformAuthLive, RequestGuardLive } from "./middleware-live.js"
export { ApiRoutes, AppRoutes, SafetyNet } from "./server.js"
export { VirtualClock } from "./virtual-clock.js"
