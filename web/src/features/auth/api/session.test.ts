import { createConnectQueryKey } from "@connectrpc/connect-query";
import { describe, expect, it } from "vitest";
import { AuthService } from "@/gen/thumela/bff/v1/bff_pb";
import { sessionQueryFilter } from "./session-key";

describe("sessionQueryFilter", () => {
  it("is connect-query's key prefix for GetSession", () => {
    expect(sessionQueryFilter.queryKey).toEqual(
      createConnectQueryKey({ schema: AuthService.method.getSession, cardinality: undefined }),
    );
  });
});
