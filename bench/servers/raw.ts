/**
 * The memory baseline: a bare node:http server that reads the body, parses the same
 * JSON, checks two fields and answers a similar 201. What "no framework, no rules, no
 * storage" costs on this machine, measured in the same run as the real server.
 */
import { serveRaw } from "./raw-common.js"

serveRaw()
