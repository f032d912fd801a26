import { useQuery } from "@connectrpc/connect-query";
import { PaymentMethodType, PaymentMethodsService } from "@/gen/thumela/bff/v1/bff_pb";

/**
 * The sender's saved cards (bank accounts are not payable yet): the wizard's payment step and
 * the schedule dialog choose from them. The live stream's payment_methods_changed refreshes them.
 */
export function usePaymentCards() {
  const query = useQuery(PaymentMethodsService.method.listPaymentMethods, {});
  const cards = query.data?.paymentMethods.filter((m) => m.type !== PaymentMethodType.BANK_ACCOUNT);
  return { ...query, cards };
}
