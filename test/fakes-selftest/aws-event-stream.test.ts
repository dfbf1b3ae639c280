// The fake Bedrock's event-stream frames, decoded by the AWS SDK's own codec: valid lengths, CRCs and
// headers, and payloads that carry the Messages API's events as Bedrock does.
import { EventStreamCodec } from "@smithy/eventstream-codec";
import { EventStreamMarshaller } from "@smithy/eventstream-serde-universal";
import { describe, expect, it } from "vitest";
import { bedrockChunk, bedrockException, encodeEventStreamMessage } from "../fakes/aws-event-stream.js";

const codec = new EventStreamCodec(
  (bytes) => Buffer.from(bytes).toString("utf8"),
  (text) => new Uint8Array(Buffer.from(text, "utf8")),
);

const headerValues = (headers: Record<string, { type: string; value: unknown }>) =>
  Object.fromEntries(Object.entries(headers).map(([name, header]) => [name, [header.type, header.value]]));

describe("the fake's AWS event-stream encoder", () => {
  it("writes a message the AWS codec decodes: string headers and the payload, byte for byte", () => {
    const payload = new Uint8Array(Buffer.from('{"ok":true,"text":"héllo ✓"}', "utf8"));
    const decoded = codec.decode(encodeEventStreamMessage({ ":message-type": "event", ":event-type": "chunk", "x-ünïcode": "välue" }, payload));
    expect(headerValues(decoded.headers)).toEqual({
      ":message-type": ["string", "event"],
      ":event-type": ["string", "chunk"],
      "x-ünïcode": ["string", "välue"],
    });
    expect(Buffer.from(decoded.body).toString("utf8")).toBe('{"ok":true,"text":"héllo ✓"}');
  });

  it("writes the lengths and both CRCs the codec checks: a flipped byte anywhere is refused", () => {
    const frame = encodeEventStreamMessage({ ":message-type": "event" }, new Uint8Array(Buffer.from("payload")));
    expect(frame.readUInt32BE(0)).toBe(frame.length);
    expect(() => codec.decode(frame)).not.toThrow();
    for (const offset of [0, 9, 14, frame.length - 9, frame.length - 1]) {
      const broken = Buffer.from(frame);
      broken[offset] = broken[offset]! ^ 0xff;
      expect(() => codec.decode(broken), `byte ${offset}`).toThrow();
    }
  });

  it("an empty payload and no headers still make a valid 16-byte message", () => {
    const frame = encodeEventStreamMessage({}, new Uint8Array());
    expect(frame.length).toBe(16);
    const decoded = codec.decode(frame);
    expect(decoded.headers).toEqual({});
    expect(decoded.body.length).toBe(0);
  });

  it("frames many messages back to back, split anywhere, as the AWS SDK's stream reader reassembles them", async () => {
    const events = [{ type: "message_start" }, { type: "ping" }, { type: "message_stop", note: "x".repeat(5000) }];
    const stream = Buffer.concat(events.map((event) => bedrockChunk(event)));
    // Read in 5-byte pieces: the reader keeps partial frames until they are whole.
    async function* pieces() {
      for (let offset = 0; offset < stream.length; offset += 5) yield new Uint8Array(stream.subarray(offset, offset + 5));
    }
    const marshaller = new EventStreamMarshaller({
      utf8Encoder: (bytes) => Buffer.from(bytes).toString("utf8"),
      utf8Decoder: (text) => new Uint8Array(Buffer.from(text)),
    });
    const received: unknown[] = [];
    const decoded = marshaller.deserialize(pieces(), async (input) => {
      const chunk = input.chunk;
      if (!chunk) return { $unknown: input };
      expect(headerValues(chunk.headers)).toEqual({
        ":event-type": ["string", "chunk"],
        ":content-type": ["string", "application/json"],
        ":message-type": ["string", "event"],
      });
      const { bytes } = JSON.parse(Buffer.from(chunk.body).toString("utf8")) as { bytes: string };
      return { chunk: JSON.parse(Buffer.from(bytes, "base64").toString("utf8")) as unknown };
    });
    for await (const event of decoded) received.push((event as { chunk: unknown }).chunk);
    expect(received).toEqual(events);
  });

  it("an exception frame names its exception and carries Bedrock's {message} body", () => {
    const decoded = codec.decode(bedrockException("throttlingException", "Too many requests, please wait before trying again."));
    expect(headerValues(decoded.headers)).toMatchObject({ ":message-type": ["string", "exception"], ":exception-type": ["string", "throttlingException"] });
    expect(JSON.parse(Buffer.from(decoded.body).toString("utf8"))).toEqual({ message: "Too many requests, please wait before trying again." });
  });
});
