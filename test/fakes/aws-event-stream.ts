/**
 * AWS event-stream framing (application/vnd.amazon.eventstream), as Bedrock's
 * InvokeModelWithResponseStream sends it, written from the format's description rather than with the
 * AWS SDK's codec, so a test decoding our frames with that codec checks one against the other.
 *
 * A message: a 12-byte prelude (total length, headers length, both uint32 big-endian, then the CRC32
 * of those 8 bytes), the headers, the payload, and the CRC32 of everything before it. A header: its
 * name's length (1 byte), the name, a value type (7: string), the value's length (uint16) and the value.
 */
import { crc32 } from "node:zlib";

const PRELUDE_BYTES = 12;
const CRC_BYTES = 4;
const STRING_HEADER = 7;

export function encodeEventStreamMessage(headers: Record<string, string>, payload: Uint8Array): Buffer {
  const encodedHeaders = Buffer.concat(Object.entries(headers).map(([name, value]) => encodeHeader(name, value)));
  const total = PRELUDE_BYTES + encodedHeaders.length + payload.length + CRC_BYTES;
  const message = Buffer.alloc(total);
  message.writeUInt32BE(total, 0);
  message.writeUInt32BE(encodedHeaders.length, 4);
  message.writeUInt32BE(crc32(message.subarray(0, 8)), 8);
  encodedHeaders.copy(message, PRELUDE_BYTES);
  Buffer.from(payload).copy(message, PRELUDE_BYTES + encodedHeaders.length);
  message.writeUInt32BE(crc32(message.subarray(0, total - CRC_BYTES)), total - CRC_BYTES);
  return message;
}

function encodeHeader(name: string, value: string): Buffer {
  const nameBytes = Buffer.from(name, "utf8");
  const valueBytes = Buffer.from(value, "utf8");
  if (nameBytes.length > 255) throw new Error(`event-stream header name longer than 255 bytes: ${name}`);
  if (valueBytes.length > 65_535) throw new Error(`event-stream header value longer than 65535 bytes: ${name}`);
  const header = Buffer.alloc(1 + nameBytes.length + 1 + 2 + valueBytes.length);
  let offset = header.writeUInt8(nameBytes.length, 0);
  offset += nameBytes.copy(header, offset);
  offset = header.writeUInt8(STRING_HEADER, offset);
  offset = header.writeUInt16BE(valueBytes.length, offset);
  valueBytes.copy(header, offset);
  return header;
}

/**
 * One streamed Messages API event as Bedrock frames it: a `chunk` event whose JSON payload carries the
 * event's JSON in base64 under `bytes`.
 */
export function bedrockChunk(event: unknown): Buffer {
  const bytes = Buffer.from(JSON.stringify(event), "utf8").toString("base64");
  return encodeEventStreamMessage(
    { ":event-type": "chunk", ":content-type": "application/json", ":message-type": "event" },
    Buffer.from(JSON.stringify({ bytes }), "utf8"),
  );
}

/** A modelled exception sent inside a 200 stream (`throttlingException`, `modelStreamErrorException`, …). */
export function bedrockException(exceptionType: string, message: string): Buffer {
  return encodeEventStreamMessage(
    { ":exception-type": exceptionType, ":content-type": "application/json", ":message-type": "exception" },
    Buffer.from(JSON.stringify({ message }), "utf8"),
  );
}
