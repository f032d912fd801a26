import { useQuery } from "@connectrpc/connect-query";
import { SystemService } from "@/gen/thumela/bff/v1/bff_pb";

/** Whether the BFF and the services behind it answer (the login page's connection banner). */
export function useConnectionCheck() {
  return useQuery(SystemService.method.checkConnection, {}, { retry: false, staleTime: 0 });
}
