import { useMutation, useQuery, useTransport } from "@connectrpc/connect-query";
import { useQueryClient } from "@tanstack/react-query";
import { AccountService } from "@/gen/thumela/bff/v1/bff_pb";
import { nameIssue } from "@/lib/person-name";
import { INVALID_MOBILE, saMobileE164 } from "@/lib/phone";
import { storeProfile } from "@/lib/profile-cache";
import { z } from "@/lib/zod";

export const FIRST_NAME_REQUIRED = "First name is required";
export const LAST_NAME_REQUIRED = "Last name is required";
export const PROFILE_UPDATE_FALLBACK = "Failed to update profile. Please try again.";
export { PHONE_PLACEHOLDER } from "@/lib/phone";

/** The profiles service's words for a name without a letter. */
export const FIRST_NAME_NO_LETTER = "First name must include at least one letter";
export const LAST_NAME_NO_LETTER = "Last name must include at least one letter";

export const profileSchema = z.object({
  // The server's name rule (lib/person-name): refused here in its words, before saving.
  firstName: z.string().trim().min(1, FIRST_NAME_REQUIRED).superRefine(nameIssue(FIRST_NAME_NO_LETTER)),
  lastName: z.string().trim().min(1, LAST_NAME_REQUIRED).superRefine(nameIssue(LAST_NAME_NO_LETTER)),
  // Optional; the server accepts any common South African notation and stores E.164. A filled-in
  // one must be a South African mobile (lib/phone mirrors the server's parser), judged with the
  // names, so every mistake of one Save shows at once.
  phoneNumber: z
    .string()
    .trim()
    .refine((phone) => phone === "" || saMobileE164(phone) !== undefined, INVALID_MOBILE),
});
export type ProfileValues = z.infer<typeof profileSchema>;

/**
 * The signed-in user's profile. No profile yet (NotFound) is normal (spec section 4): the
 * page shows empty fields.
 */
export function useProfile() {
  return useQuery(AccountService.method.getProfile, {});
}

/** Saves the profile and shows it at once in this tab (badge and Account page). */
export function useUpdateProfile() {
  const queryClient = useQueryClient();
  const transport = useTransport();
  return useMutation(AccountService.method.updateProfile, {
    onSuccess: (response) => {
      if (response.profile) storeProfile(queryClient, transport, response.profile);
    },
  });
}
