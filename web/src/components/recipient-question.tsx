import { ShieldAlert } from "lucide-react";
import { recipientQuestion } from "@/lib/recipient-confirmation";

interface RecipientQuestionProps {
  name: string;
  checked: boolean;
  onCheckedChange: (checked: boolean) => void;
  /** Prefix of the element ids, for a page with another form (default "recipient"). */
  idPrefix?: string;
}

/**
 * The first-payment question (the wizard's review step, the schedule dialog): the sender must
 * tick it before the money can go, and the answer goes with the request.
 */
export function RecipientQuestion({ name, checked, onCheckedChange, idPrefix = "recipient" }: RecipientQuestionProps) {
  const who = name.trim() || "the recipient";
  const questionId = `${idPrefix}-question`;
  const boxId = `${idPrefix}-known`;
  return (
    <section
      aria-labelledby={questionId}
      className="mt-4 rounded-lg border border-amber-300 bg-amber-50 p-4 text-amber-950 dark:border-amber-700 dark:bg-amber-950/40 dark:text-amber-100"
    >
      <div className="flex items-start gap-3">
        <ShieldAlert aria-hidden="true" className="mt-0.5 size-5 shrink-0 text-amber-700 dark:text-amber-300" />
        <p id={questionId} className="text-sm font-medium">
          {recipientQuestion(who)}
        </p>
      </div>
      <div className="mt-3 flex items-start gap-3 pl-8">
        <input
          id={boxId}
          type="checkbox"
          className="mt-0.5 size-4 shrink-0 accent-brand-700"
          checked={checked}
          onChange={(event) => onCheckedChange(event.target.checked)}
          aria-describedby={questionId}
        />
        <label htmlFor={boxId} className="text-sm font-semibold">
          Yes, I know {who} personally
        </label>
      </div>
    </section>
  );
}
