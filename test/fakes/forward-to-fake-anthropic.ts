import { request as httpRequest, type IncomingMessage } from "node:http";
import type { FakeAnthropic } from "./fake-anthropic.js";

/**
 * Sends a Messages API body on to the scripted model, as the cloud fakes (Bedrock, Vertex) do once they
 * have checked their own provider's request: the model's reply stream is theirs to re-frame.
 */
export function forwardToFakeAnthropic(model: FakeAnthropic, body: Record<string, unknown>, version: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const upstream = httpRequest(`${model.url}/v1/messages`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": model.apiKey, "anthropic-version": version },
    });
    upstream.on("response", resolve);
    upstream.on("error", reject);
    upstream.end(JSON.stringify(body));
  });
}
