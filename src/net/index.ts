export { createWebFetcher, type WebFetcherOptions } from "./create-web-fetcher.js";
export { createWebFetchCache } from "./create-web-fetch-cache.js";
export { isWebFetchOff } from "./is-web-fetch-off.js";
export { createDestinationRules } from "./create-destination-rules.js";
export { createGuardedFetch } from "./create-guarded-fetch.js";
export { createMcpPort, type McpServerSpec } from "./create-mcp-port.js";
