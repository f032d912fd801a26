import { ShieldAlert } from "lucide-react";
import { recipientQuestion } from "../../lib/recipient-confirmation";

interface RecipientQuestionProps {
  name: string;
  checked: boolean;
  onCheckedChange: (checked: boolean) => void;
}

/**
 * The first-payment question on the review step: the sender must tick it before 'Send Money'
 * is enabled, and the answer goes with the transfer.
 */
export function RecipientQuestion({ name, checked, onCheckedChange }: RecipientQuestionProps) {
  const who = name.trim() || "the recipient";
  return (
    <section
      aria-labelledby="recipient-question"
      className="mt-4 rounded-lg border border-amber-300 bg-amber-50 p-4 text-amber-950 dark:border-amber-700 dark:bg-amber-950/40 dark:text-amber-100"
    >
      <div className="flex items-start gap-3">
        <ShieldAlert aria-hidden="true" className="mt-0.5 size-5 shrink-0 text-amber-700 dark:text-amber-300" />
        <p id="recipient-question" className="text-sm font-medium">
          {recipientQuestion(who)}
        </p>
      </div>
      <div className="mt-3 flex items-start gap-3 pl-8">
        <input
          id="recipient-known"
          type="checkbox"
          className="mt-0.5 size-4 shrink-0 accent-brand-700"
          checked={checked}
          onChange={(event) => onCheckedChange(event.target.checked)}
          aria-describedby="recipient-question"
        />
        <label htmlFor="recipient-known" className="text-sm font-semibold">
          Yes, I know {who} personally
        </label>
      </div>
    </section>
  );
}
