import { describe, expect, it } from "vitest";
import { parseDelivery } from "../../../src/main/receive.js";

const payload = JSON.stringify({ action: "assigned", installation: { id: 7 }, issue: { number: 1 } });
const parse = (event: string, payloadText = payload) => parseDelivery({ event, payloadText, payloadPath: "p.json", deliveryId: "d-1" });

describe("parseDelivery (tackle receive's input)", () => {
  it("an event name and a payload naming the installation make a delivery", () => {
    expect(parse("issues")).toEqual({ id: "d-1", name: "issues", payload: JSON.parse(payload) });
    // With the action: checked against the payload, then sent as the event name GitHub uses.
    expect(parse("issues.assigned")).toMatchObject({ name: "issues" });
  });

  it("says what is wrong with the event name or the payload", () => {
    expect(parse("isues")).toEqual({ problem: '"isues" is not a GitHub webhook event name (X-GitHub-Event, such as issues or issue_comment)' });
    expect(parse("issues.frobbed")).toMatchObject({ problem: expect.stringContaining('"issues.frobbed" is not a GitHub webhook event name') });
    expect(parse("issues.opened")).toEqual({ problem: 'the event is issues.opened but the payload\'s action is "assigned"' });
    expect(parse("issues", "{ not json")).toMatchObject({ problem: expect.stringMatching(/^p\.json is not valid JSON: /) });
    expect(parse("issues", "[1]")).toEqual({ problem: "p.json does not hold a webhook payload (a JSON object)" });
    expect(parse("issues", '{"action":"assigned"}')).toMatchObject({ problem: expect.stringMatching(/^p\.json has no installation\.id/) });
  });
});
