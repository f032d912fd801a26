import { createConnectQueryKey, useMutation, useQuery, useTransport } from "@connectrpc/connect-query";
import { useMutation as useTanstackMutation, useQueryClient } from "@tanstack/react-query";
import { SecurityService } from "@/gen/thumela/bff/v1/bff_pb";
import { registerPasskey } from "@/lib/passkeys";

const listPasskeys = SecurityService.method.listPasskeys;

export function usePasskeys() {
  return useQuery(listPasskeys, {});
}

function useInvalidatePasskeys() {
  const queryClient = useQueryClient();
  return () =>
    queryClient.invalidateQueries({ queryKey: createConnectQueryKey({ schema: listPasskeys, cardinality: undefined }) });
}

/** Runs the browser's passkey creation and the server's check; the list reloads after. */
export function useAddPasskey() {
  const transport = useTransport();
  const invalidate = useInvalidatePasskeys();
  return useTanstackMutation({
    mutationFn: (name: string = "") => registerPasskey(transport, name),
    onSettled: invalidate,
  });
}

export function useDeletePasskey() {
  const invalidate = useInvalidatePasskeys();
  return useMutation(SecurityService.method.deletePasskey, { onSettled: invalidate });
}
