export { createWebFetcher, type WebFetcherOptions } from "./create-web-fetcher.js";
export { createWebFetchCache } from "./create-web-fetch-cache.js";
