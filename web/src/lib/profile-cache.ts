import { create } from "@bufbuild/protobuf";
import type { Transport } from "@connectrpc/connect";
import { createConnectQueryKey } from "@connectrpc/connect-query";
import type { QueryClient } from "@tanstack/react-query";
import {
  AccountService,
  AuthService,
  GetProfileResponseSchema,
  GetSessionResponseSchema,
} from "@/gen/thumela/bff/v1/bff_pb";
import type { GetSessionResponse, Profile } from "@/gen/thumela/bff/v1/bff_pb";

/**
 * Puts a fresh profile wherever the app shows one: every cached GetSession answer (the top-bar
 * badge) and GetProfile (the Account page). Used after UpdateProfile and for the live stream's
 * profileUpdated, so every open tab shows the same names.
 */
export function storeProfile(queryClient: QueryClient, transport: Transport, profile: Profile): void {
  queryClient.setQueriesData<GetSessionResponse>(
    { queryKey: createConnectQueryKey({ schema: AuthService.method.getSession, cardinality: undefined }) },
    (old) => (old ? create(GetSessionResponseSchema, { user: old.user, profile }) : old),
  );
  queryClient.setQueryData(
    createConnectQueryKey({ schema: AccountService.method.getProfile, input: {}, transport, cardinality: "finite" }),
    create(GetProfileResponseSchema, { profile }),
  );
}
