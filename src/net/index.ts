export { createWebFetcher, type WebFetcherOptions } from "./create-web-fetcher.js";
export { createWebFetchCache } from "./create-web-fetch-cache.js";
export { isWebFetchOff } from "./is-web-fetch-off.js";
