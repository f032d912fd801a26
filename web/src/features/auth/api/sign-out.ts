import { useMutation } from "@connectrpc/connect-query";
import { AuthService } from "@/gen/thumela/bff/v1/bff_pb";

export function useSignOut() {
  return useMutation(AuthService.method.signOut);
}
