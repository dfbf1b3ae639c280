export { createWebFetcher, type WebFetcherOptions } from "./create-web-fetcher.js";
export { createWebFetchCache, type WebFetchCache } from "./create-web-fetch-cache.js";
