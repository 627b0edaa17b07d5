export * from "./events.js"
export * from "./ids.js"
export * from "./platforms.js"
export * from "./store.js"
