/**
 * The saved recipients feature: the /recipients page, with the scheduled sends. The wizard reads the same list through
 * lib/recipients.ts (features do not import each other).
 */
export { RecipientsPage } from "./components/recipients-page";
