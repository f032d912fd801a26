import { createConnectQueryKey, useMutation } from "@connectrpc/connect-query";
import { useQueryClient } from "@tanstack/react-query";
import { RecipientsService } from "@/gen/thumela/bff/v1/bff_pb";
import { RECIPIENT_NAME_NO_LETTER, nameIssue } from "@/lib/person-name";
import { INVALID_MOBILE, saMobileE164 } from "@/lib/phone";
import { z } from "@/lib/zod";

const service = RecipientsService.method;

/** The page's words (the empty state's is the issue's, verbatim). */
export const RECIPIENT_MESSAGES = {
  empty: "No saved recipients yet. People you send money to are saved here.",
  loadFailed: "We couldn't load your saved recipients.",
  updated: "Recipient updated",
  updateFailed: "Update failed",
  updateFailedFallback: "There was a problem saving this recipient.",
  deleted: "Recipient deleted",
  deleteFailed: "Delete failed",
  deleteFailedFallback: "There was a problem deleting this recipient.",
  nameRequired: "Please enter the recipient's name.",
  nameNoLetter: RECIPIENT_NAME_NO_LETTER,
  bankRequired: "Please choose the recipient's bank.",
} as const;

/** The edit dialog's form: the server validates again (the name rule, the mobile number). */
export const recipientSchema = z.object({
  name: z.string().trim().min(1, RECIPIENT_MESSAGES.nameRequired).superRefine(nameIssue(RECIPIENT_MESSAGES.nameNoLetter)),
  phone: z
    .string()
    .trim()
    .refine((value) => saMobileE164(value) !== undefined, INVALID_MOBILE),
  bank: z.string().regex(/^[1-9]\d*$/, RECIPIENT_MESSAGES.bankRequired),
});
export type RecipientFormValues = z.infer<typeof recipientSchema>;

function useInvalidateList() {
  const queryClient = useQueryClient();
  return () =>
    queryClient.invalidateQueries({
      queryKey: createConnectQueryKey({ schema: service.listRecipients, cardinality: undefined }),
    });
}

export function useUpdateRecipient() {
  const invalidate = useInvalidateList();
  return useMutation(service.updateRecipient, { onSuccess: invalidate });
}

export function useDeleteRecipient() {
  const invalidate = useInvalidateList();
  return useMutation(service.deleteRecipient, { onSuccess: invalidate });
}
