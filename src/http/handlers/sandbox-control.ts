import { implement } from "../concerns.js"
import { SandboxControlGroup } from "../groups/sandbox-control.js"
import { Effect } from "effect"
import * as Faults from "../../operations/sandbox-faults.js"
import { applySeed } from "../../operations/sandbox-seed.js"
import * as Snapshots from "../../operations/sandbox-snapshots.js"
import { run } from "./run.js"
import { CurrentPlatform } from "../middleware.js"

const withPlatform = <A, E, R>(f: (platform: typeof CurrentPlatform.Service) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.service(CurrentPlatform), f)

export const SandboxControlHandlers = implement(SandboxControlGroup, (handlers) =>
    handlers
      .handle("putSandboxFaults", ({ payload }) => withPlatform((p) => Faults.putSandboxFaults(p, payload)))
      .handle("getSandboxFaults", () => withPlatform(Faults.getSandboxFaults))
      .handle("deleteSandboxFaults", () => withPlatform(Faults.deleteSandboxFaults))
      // On the platform's clock, as each operation it calls runs for its own endpoint.
      .handle("applySandboxSeed", ({ payload }) => run((p) => applySeed(p, payload)))
      // On the base clock: they read and set the platform's offset themselves.
      .handle("createSandboxSnapshot", ({ payload }) => withPlatform((p) => Snapshots.createSandboxSnapshot(p, payload)))
      .handle("listSandboxSnapshots", ({ query }) => withPlatform((p) => Snapshots.listSandboxSnapshots(p, query)))
      .handle("getSandboxSnapshot", ({ params }) => withPlatform((p) => Snapshots.getSandboxSnapshot(p, params.snapshotId)))
      .handle("deleteSandboxSnapshot", ({ params }) => withPlatform((p) => Snapshots.deleteSandboxSnapshot(p, params.snapshotId)))
      .handle("restoreSandboxSnapshot", ({ params }) => withPlatform((p) => Snapshots.restoreSandboxSnapshot(p, params.snapshotId))))
