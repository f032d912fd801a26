import { createClient } from "@connectrpc/connect";
import { afterEach, describe, expect, it, vi } from "vitest";
import { SystemService } from "@/gen/thumela/bff/v1/bff_pb";
import { newTraceparent, transport } from "./transport";

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-01$/;

afterEach(() => {
  vi.unstubAllGlobals();
});

/** A getRandomValues stand-in that lets fill write the array's bytes. */
function filling(fill: (bytes: Uint8Array) => void) {
  return <T extends ArrayBufferView>(array: T): T => {
    fill(new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
    return array;
  };
}

describe("newTraceparent", () => {
  it("is version 00, a 16-byte trace id, an 8-byte span id and the sampled flag", () => {
    const fill = vi.spyOn(crypto, "getRandomValues").mockImplementation(
      filling((bytes) => bytes.forEach((_, i) => (bytes[i] = i + 1))),
    );
    expect(newTraceparent()).toBe("00-0102030405060708090a0b0c0d0e0f10-1112131415161718-01");
    expect(fill).toHaveBeenCalledTimes(1);
  });

  it("draws again rather than send an all-zero id", () => {
    let calls = 0;
    vi.spyOn(crypto, "getRandomValues").mockImplementation(
      filling((bytes) => {
        calls++;
        // First draw: a valid trace id but an all-zero span id.
        bytes.fill(0);
        if (calls === 1) bytes[0] = 1;
        else bytes.fill(0xab);
      }),
    );
    expect(newTraceparent()).toBe(`00-${"ab".repeat(16)}-${"ab".repeat(8)}-01`);
    expect(calls).toBe(2);
  });

  it("is random per call", () => {
    const a = TRACEPARENT.exec(newTraceparent());
    const b = TRACEPARENT.exec(newTraceparent());
    expect(a).not.toBeNull();
    expect(b).not.toBeNull();
    expect(a![1]).not.toBe(b![1]);
    expect(a![2]).not.toBe(b![2]);
  });
});

describe("transport", () => {
  /**
   * Stubs fetch with a Connect server that answers an empty message in binary protobuf (zero
   * bytes) and records each request's headers.
   */
  function stubFetch(): Headers[] {
    const seen: Headers[] = [];
    vi.stubGlobal("fetch", async (_url: string, init: RequestInit) => {
      seen.push(new Headers(init.headers));
      return new Response(new Uint8Array(), { status: 200, headers: { "content-type": "application/proto" } });
    });
    return seen;
  }

  it("speaks Connect's binary protobuf, not JSON", async () => {
    const seen = stubFetch();
    await createClient(SystemService, transport).checkConnection({});
    expect(seen[0].get("content-type")).toBe("application/proto");
  });

  it("sends a new traceparent with every call", async () => {
    const seen = stubFetch();
    const client = createClient(SystemService, transport);
    await client.checkConnection({});
    await client.checkConnection({});
    expect(seen).toHaveLength(2);
    const first = seen[0].get("traceparent") ?? "";
    const second = seen[1].get("traceparent") ?? "";
    expect(first).toMatch(TRACEPARENT);
    expect(second).toMatch(TRACEPARENT);
    // Each request is its own trace.
    expect(first.slice(3, 35)).not.toBe(second.slice(3, 35));
  });

  it("keeps a traceparent the caller set", async () => {
    const seen = stubFetch();
    const mine = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    await createClient(SystemService, transport).checkConnection({}, { headers: { traceparent: mine } });
    expect(seen[0].get("traceparent")).toBe(mine);
  });
});
