export { createWebFetcher, type WebFetcherOptions } from "./create-web-fetcher.js";
export { createWebFetchCache } from "./create-web-fetch-cache.js";
export { isWebFetchOff } from "./is-web-fetch-off.js";
export { createDestinationRules } from "./create-destination-rules.js";
// The only outbound HTTP of src/net: a client with limits that only createHttpClient makes.
export { createHttpClient, type HttpLimits } from "./create-http-client.js";
export { isHttpLimitError } from "./http-limit-error.js";
export { createMcpPort, type McpServerSpec } from "./create-mcp-port.js";
